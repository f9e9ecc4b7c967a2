/**
 * Fields read by role rather than by one name: the spec leaves most payloads open, so an
 * upstream may call the 25-delta risk reversal `rr25`, `rr_25d` or `risk_reversal_25d`, write
 * it in camelCase, and send it as a JSON number or as text. A derived view names the role's
 * aliases once and reads whichever the row has; a value that is not a number (or numeric
 * text) is not read, and the view says so rather than answering a blank.
 */
import { numberOf } from '../../api/paging-evidence.js';

type Row = Record<string, unknown>;

const fold = (name: string): string => name.toLowerCase().replace(/[-_.]/g, '');

/**
 * A role: the names public APIs give it (compared without case, `_`, `-` or `.`), then, for
 * a name nobody listed, the words it must hold (`iv_pct_rank_1y` holds `pct` and `rank`;
 * `implied_vol_30d` holds `vol` and `30`): the first signature any key holds wins.
 */
export type FieldRole = readonly string[] | { readonly aliases: readonly string[]; readonly words: readonly (readonly string[])[] };

/** `iv_pct_rank_1y`, `ivPctRank1y` → iv, pct, rank, 1, y. */
function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Za-z])(\d)|(\d)([A-Za-z])/g, '$1$3 $2$4')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** The row's own key for the role: the first alias it has, else the first signature of words a key holds. */
export function keyFor(row: Row, role: FieldRole): string | undefined {
  const { aliases, words } = Array.isArray(role)
    ? { aliases: role as readonly string[], words: [] }
    : (role as Exclude<FieldRole, readonly string[]>);
  const keys = Object.keys(row);
  for (const alias of aliases.map(fold)) {
    const key = keys.find((k) => fold(k) === alias);
    if (key !== undefined) return key;
  }
  for (const signature of words) {
    const key = keys.find((k) => {
      const held = wordsOf(k);
      return signature.every((word) => held.includes(word));
    });
    if (key !== undefined) return key;
  }
  return undefined;
}

/** A number by role: a JSON number or numeric text under any alias; undefined when none reads as one. */
export function numberByRole(row: Row | undefined, aliases: FieldRole): number | undefined {
  if (!row) return undefined;
  const key = keyFor(row, aliases);
  return key === undefined ? undefined : numberOf(row[key]);
}

/** A text by role under any alias; undefined when none is a non-empty string. */
export function textByRole(row: Row | undefined, aliases: FieldRole): string | undefined {
  if (!row) return undefined;
  const key = keyFor(row, aliases);
  const value = key === undefined ? undefined : row[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * The ticker a row names, however the upstream calls the field: `ticker`, `symbol`,
 * `tickerSymbol`, `Ticker_Symbol`, `underlying`... The spec leaves every payload but the
 * dealer history's open, so a list of names is read by role, never by our own field name.
 */
const TICKER: FieldRole = {
  aliases: ['ticker', 'symbol', 'ticker_symbol', 'underlying_symbol', 'underlying_ticker', 'underlying', 'stock', 'stock_symbol'],
  words: [['ticker'], ['symbol']],
};

export function tickerOf(row: Row | undefined): string | undefined {
  return textByRole(row, TICKER);
}

// The volatility measures by role (volatility_compare, the briefing's IV rank), read as numbers or numeric text.

/** A 30-day implied volatility, however named: `iv30`, `implied_vol_30d`, `atmVolatility30`. */
const VOL30 = [
  ['iv', '30'],
  ['vol', '30'],
  ['volatility', '30'],
];
export const RR25 = {
  aliases: ['rr25', 'rr_25d', 'risk_reversal_25d', 'rr25d', 'risk_reversal_25', 'skew_25d'],
  words: [
    ['rr', '25'],
    ['risk', 'reversal'],
    ['skew', '25'],
  ],
};
export const ATM_IV30 = { aliases: ['atm_iv30', 'iv30', 'atm_iv_30d', 'iv_30d', 'implied_volatility_30d'], words: VOL30 };
export const ANOMALY = { aliases: ['anomaly_score', 'score', 'anomaly', 'z_score', 'zscore'], words: [['anomaly']] };
export const PERCENTILE = {
  aliases: ['iv_percentile_1y', 'percentile_1y', 'iv_percentile', 'iv_pct_1y', 'iv_rank_1y'],
  words: [['percentile'], ['pctile'], ['pct', 'rank'], ['rank']],
};
export const IV30 = { aliases: ['iv30', 'atm_iv30', 'iv_30d', 'implied_volatility_30d'], words: VOL30 };
