/** Reference data: the companies of a sector, and the vendor's ticker-to-exchange directory. */
import { seededRandom } from '../random.js';
import { REFERENCE, STOCKS } from '../reference.js';
import { closeOn } from '../market.js';
import { limitOf, stringParam, type Generator, type Row } from './context.js';
import { lastClosedDate } from './days.js';

export const sectorTickers: Generator = (ctx) => {
  const sector = stringParam(ctx, 'sector');
  const date = lastClosedDate(ctx);
  const rows = STOCKS.filter((s) => s.sector === sector)
    .map((s) => ({
      ticker: s.ticker,
      name: s.name,
      exchange: s.exchange,
      market_cap_usd: Math.round(closeOn(ctx.seed, s, date) * s.sharesM * 1e6),
    }))
    .sort((a, b) => b.market_cap_usd - a.market_cap_usd);
  return { data: rows, asOf: ctx.now };
};

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const SUFFIXES = ['Holdings', 'Corp.', 'Inc.', 'Acquisition Corp.', 'Therapeutics', 'Bancorp', 'Technologies', 'Resources'];
const LISTED = REFERENCE.filter((s) => s.kind !== 'index');
const KNOWN = new Set(REFERENCE.map((s) => s.ticker));

/** Three- and four-letter codes: the long tail's tickers are drawn from these without repeats. */
const THREE = 26 ** 3;
const CODES = THREE + 26 ** 4;
/** Coprime with CODES (2^3 3^3 13^3): stepping by it visits every code once before any twice. */
const STRIDE = 7919;

/** The tail's ticker at place `j`: a different code for every place (a list names each company once), scattered by the seed. */
function tailTicker(seed: number, j: number): string {
  const start = Math.floor(seededRandom(seed, 'directory-start')() * CODES);
  let code = (start + j * STRIDE) % CODES;
  const length = code < THREE ? 3 : 4;
  if (length === 4) code -= THREE;
  let ticker = '';
  for (let k = 0; k < length; k += 1) {
    ticker = (LETTERS[code % 26] ?? 'X') + ticker;
    code = Math.floor(code / 26);
  }
  // A code that is a reference symbol's gets a fifth letter (QQ after three, X after four): no other code has five.
  if (!KNOWN.has(ticker)) return ticker;
  return length === 3 ? `${ticker}QQ` : `${ticker}X`;
}

/** Row `i` of the vendor list: the reference symbols first, then the long tail, each a function of its position. */
function directoryRow(seed: number, i: number): Row {
  const known = LISTED[i];
  if (known) return { ticker: known.ticker, name: known.name, exchange: known.exchange, delisted: false };
  const random = seededRandom(seed, 'directory', i);
  const ticker = tailTicker(seed, i - LISTED.length);
  const delisted = random() < 0.3;
  const exchange = ['NASDAQ', 'NYSE', 'NYSE American', 'NYSE Arca', 'Cboe BZX'][Math.floor(random() * 5)] ?? 'NASDAQ';
  const suffix = SUFFIXES[Math.floor(random() * SUFFIXES.length)] ?? 'Inc.';
  return { ticker, name: `${ticker[0]}${ticker.slice(1).toLowerCase()} ${suffix}`, exchange: delisted ? 'OTC' : exchange, delisted };
}

export const tickerExchanges: Generator = (ctx) => ({
  data: Array.from({ length: limitOf(ctx, 500) }, (_, i) => directoryRow(ctx.seed, i)),
  asOf: ctx.now,
});
