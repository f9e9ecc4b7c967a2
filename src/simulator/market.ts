/**
 * The simulated market: a small universe of tickers, ET trading sessions and a seeded
 * random source, so every dataset is deterministic for a given seed, ticker and day.
 */
export interface UniverseEntry {
  readonly ticker: string;
  readonly name: string;
  readonly sector: string;
  readonly exchange: string;
  readonly spot: number;
  readonly isIndex?: boolean;
}

export const UNIVERSE: readonly UniverseEntry[] = [
  { ticker: 'SPY', name: 'SPDR S&P 500 ETF', sector: 'Financial Services', exchange: 'NYSE Arca', spot: 598.4 },
  { ticker: 'QQQ', name: 'Invesco QQQ Trust', sector: 'Technology', exchange: 'NASDAQ', spot: 512.7 },
  { ticker: 'IWM', name: 'iShares Russell 2000 ETF', sector: 'Financial Services', exchange: 'NYSE Arca', spot: 231.2 },
  { ticker: 'AAPL', name: 'Apple Inc.', sector: 'Technology', exchange: 'NASDAQ', spot: 228.5 },
  { ticker: 'MSFT', name: 'Microsoft Corp.', sector: 'Technology', exchange: 'NASDAQ', spot: 441.3 },
  { ticker: 'NVDA', name: 'NVIDIA Corp.', sector: 'Technology', exchange: 'NASDAQ', spot: 142.8 },
  { ticker: 'AMD', name: 'Advanced Micro Devices', sector: 'Technology', exchange: 'NASDAQ', spot: 151.6 },
  { ticker: 'TSLA', name: 'Tesla Inc.', sector: 'Consumer Cyclical', exchange: 'NASDAQ', spot: 262.1 },
  { ticker: 'AMZN', name: 'Amazon.com Inc.', sector: 'Consumer Cyclical', exchange: 'NASDAQ', spot: 196.4 },
  { ticker: 'META', name: 'Meta Platforms', sector: 'Communication Services', exchange: 'NASDAQ', spot: 583.9 },
  { ticker: 'GOOGL', name: 'Alphabet Inc. Class A', sector: 'Communication Services', exchange: 'NASDAQ', spot: 171.2 },
  { ticker: 'GME', name: 'GameStop Corp.', sector: 'Consumer Cyclical', exchange: 'NYSE', spot: 27.4 },
  { ticker: 'AMC', name: 'AMC Entertainment', sector: 'Communication Services', exchange: 'NYSE', spot: 4.9 },
  { ticker: 'JPM', name: 'JPMorgan Chase & Co.', sector: 'Financial Services', exchange: 'NYSE', spot: 238.6 },
  { ticker: 'BRK.B', name: 'Berkshire Hathaway Class B', sector: 'Financial Services', exchange: 'NYSE', spot: 471.2 },
  { ticker: 'XOM', name: 'Exxon Mobil Corp.', sector: 'Energy', exchange: 'NYSE', spot: 118.3 },
  { ticker: 'CVX', name: 'Chevron Corp.', sector: 'Energy', exchange: 'NYSE', spot: 156.2 },
  { ticker: 'JNJ', name: 'Johnson & Johnson', sector: 'Healthcare', exchange: 'NYSE', spot: 152.7 },
  { ticker: 'UNH', name: 'UnitedHealth Group', sector: 'Healthcare', exchange: 'NYSE', spot: 589.1 },
  { ticker: 'PG', name: 'Procter & Gamble', sector: 'Consumer Defensive', exchange: 'NYSE', spot: 171.8 },
  { ticker: 'KO', name: 'Coca-Cola Co.', sector: 'Consumer Defensive', exchange: 'NYSE', spot: 64.3 },
  { ticker: 'CAT', name: 'Caterpillar Inc.', sector: 'Industrials', exchange: 'NYSE', spot: 392.5 },
  { ticker: 'BA', name: 'Boeing Co.', sector: 'Industrials', exchange: 'NYSE', spot: 154.9 },
  { ticker: 'LIN', name: 'Linde plc', sector: 'Basic Materials', exchange: 'NASDAQ', spot: 452.8 },
  { ticker: 'FCX', name: 'Freeport-McMoRan', sector: 'Basic Materials', exchange: 'NYSE', spot: 44.1 },
  { ticker: 'PLD', name: 'Prologis Inc.', sector: 'Real Estate', exchange: 'NYSE', spot: 113.6 },
  { ticker: 'O', name: 'Realty Income', sector: 'Real Estate', exchange: 'NYSE', spot: 56.9 },
  { ticker: 'NEE', name: 'NextEra Energy', sector: 'Utilities', exchange: 'NYSE', spot: 76.4 },
  { ticker: 'DUK', name: 'Duke Energy', sector: 'Utilities', exchange: 'NYSE', spot: 110.2 },
  { ticker: 'SPX', name: 'S&P 500 Index', sector: 'Financial Services', exchange: 'CBOE', spot: 5990.5, isIndex: true },
  { ticker: 'NDX', name: 'Nasdaq-100 Index', sector: 'Technology', exchange: 'NASDAQ', spot: 20970.2, isIndex: true },
  { ticker: 'VIX', name: 'CBOE Volatility Index', sector: 'Financial Services', exchange: 'CBOE', spot: 15.8, isIndex: true },
  { ticker: 'RUT', name: 'Russell 2000 Index', sector: 'Financial Services', exchange: 'CBOE', spot: 2316.4, isIndex: true },
];

const BY_TICKER = new Map(UNIVERSE.map((entry) => [entry.ticker, entry]));

export function lookupTicker(ticker: string): UniverseEntry | undefined {
  return BY_TICKER.get(ticker);
}

/** mulberry32 over an FNV-1a hash of the parts: stable across runs and platforms. */
export function seededRandom(...parts: (string | number)[]): () => number {
  let hash = 0x811c9dc5;
  for (const char of parts.join('|')) {
    hash ^= char.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193);
  }
  let state = hash >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Built on first use: loading the time-zone data takes ~20 ms, off --demo's first answer.
let etParts: Intl.DateTimeFormat | undefined;
const etFormat = (): Intl.DateTimeFormat =>
  (etParts ??= new Intl.DateTimeFormat('en-US', {
    timeZone: 'America/New_York',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'longOffset',
  }));

/** The ET calendar date, minutes after midnight and UTC offset ("-05:00") of an instant. */
export function toEt(instant: number): { date: string; minutes: number; offset: string } {
  const parts = Object.fromEntries(
    etFormat()
      .formatToParts(new Date(instant))
      .map((p) => [p.type, p.value]),
  );
  const offset = (parts['timeZoneName'] ?? 'GMT-05:00').replace('GMT', '') || '+00:00';
  return {
    date: `${parts['year']}-${parts['month']}-${parts['day']}`,
    minutes: Number(parts['hour']) * 60 + Number(parts['minute']),
    offset,
  };
}

function isWeekday(date: string): boolean {
  const day = new Date(`${date}T12:00:00Z`).getUTCDay();
  return day !== 0 && day !== 6;
}

export function shiftDate(date: string, days: number): string {
  const shifted = new Date(`${date}T12:00:00Z`);
  shifted.setUTCDate(shifted.getUTCDate() + days);
  return shifted.toISOString().slice(0, 10);
}

export const SESSION_OPEN_MINUTES = 9 * 60 + 30;
export const SESSION_CLOSE_MINUTES = 16 * 60;

/** The latest `count` ET trading sessions (weekdays) that have opened by `now`, newest first. */
export function recentSessions(now: number, count: number): string[] {
  const et = toEt(now);
  let date = et.date;
  if (!isWeekday(date) || et.minutes < SESSION_OPEN_MINUTES) date = shiftDate(date, -1);
  const sessions: string[] = [];
  while (sessions.length < count) {
    if (isWeekday(date)) sessions.push(date);
    date = shiftDate(date, -1);
  }
  return sessions;
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
