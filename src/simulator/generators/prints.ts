/**
 * Trade prints, lit and dark. Prints sit on a fixed grid of instants inside the session,
 * each one a function of (seed, session, instant): a larger limit reaches further back, it
 * never changes the prints already shown. Prices lie on the session's intraday path.
 */
import { etIso, previousTradingDay, sessionOn, type Session } from '../../catalog/market-calendar.js';
import { priceAt, volumeOn } from '../market.js';
import { gaussian, pick, round, seededRandom } from '../random.js';
import { REFERENCE, type ReferenceSymbol } from '../reference.js';
import { DatasetRefusal, limitOf, requireSymbol, stringParam, type Generator, type GeneratorContext, type Row } from './context.js';
import { requestedSession } from './days.js';

const LIT_VENUES = ['NASDAQ', 'NYSE', 'NYSE Arca', 'Cboe BZX', 'Cboe EDGX', 'IEX', 'MEMX'] as const;
const DARK_VENUES = ['FINRA ADF', 'NASDAQ TRF Carteret', 'NASDAQ TRF Chicago', 'NYSE TRF'] as const;
const LIT_SPACING_MS = 200;
const DARK_SPACING_MS = 20_000;
/** Share of a session's volume that prints in dark pools as reported blocks here. */
const DARK_SHARE_OF_VOLUME = 0.12;
/** Grid slots that carry a print. */
const DARK_FILL = 0.65;
/** Spread of print sizes (log-normal): most prints are small, a few are blocks. */
const DARK_SIZE_SIGMA = 1.6;

/**
 * The median print of a name on a day: its prints add up to DARK_SHARE_OF_VOLUME of the
 * day's volume (volumeOn, the same figure the short-volume tools report), so AAPL prints
 * in proportion to AAPL's volume and GME to GME's.
 */
function medianDarkSize(seed: number, symbol: ReferenceSymbol, session: Session): number {
  const prints = ((session.closeAt - session.openAt) / DARK_SPACING_MS) * DARK_FILL;
  const mean = (DARK_SHARE_OF_VOLUME * volumeOn(seed, symbol, session.date)) / Math.max(1, prints);
  return mean / Math.exp(DARK_SIZE_SIGMA ** 2 / 2);
}

const TRADED = REFERENCE.filter((s) => s.kind !== 'index');
const DOLLAR_VOLUME = TRADED.map((s) => s.advM * s.price);
const TOTAL_DOLLAR_VOLUME = DOLLAR_VOLUME.reduce((a, b) => a + b, 0);

/** A symbol drawn in proportion to its dollar volume: SPY and NVDA print more than DUK. */
function busySymbol(random: () => number): ReferenceSymbol {
  let target = random() * TOTAL_DOLLAR_VOLUME;
  for (let i = 0; i < TRADED.length; i += 1) {
    target -= DOLLAR_VOLUME[i] ?? 0;
    if (target <= 0) return TRADED[i] ?? pick(random, TRADED);
  }
  return pick(random, TRADED);
}

/** Grid instants of a session up to `end`, newest first, crossing into earlier sessions when needed. */
function* gridBackwards(session: Session, end: number, spacing: number): IterableIterator<{ session: Session; at: number }> {
  let current: Session | undefined = session;
  let last = end;
  for (let guard = 0; current && guard < 10; guard += 1) {
    for (
      let at = current.openAt + Math.floor((Math.min(last, current.closeAt) - current.openAt) / spacing) * spacing;
      at > current.openAt;
      at -= spacing
    )
      yield { session: current, at };
    current = sessionOn(previousTradingDay(current.date));
    last = current?.closeAt ?? 0;
  }
}

export const litTradesRecent: Generator = (ctx) => {
  const rows: Row[] = [];
  const limit = limitOf(ctx, 100);
  const end = Math.min(ctx.now, ctx.session.closeAt);
  for (const { session, at } of gridBackwards(ctx.session, end, LIT_SPACING_MS)) {
    if (rows.length >= limit) break;
    const random = seededRandom(ctx.seed, 'lit', at);
    const symbol = busySymbol(random);
    const roundLot = random() < 0.8;
    rows.push({
      ticker: symbol.ticker,
      price_usd: round(priceAt(ctx.seed, symbol, at, session) * (1 + (random() - 0.5) * 0.0004), 2),
      size: roundLot ? 100 * Math.ceil(random() * 20) : 1 + Math.floor(random() * 99),
      venue: pick(random, LIT_VENUES),
      executed_at: etIso(at, true),
      session_date_et: session.date,
    });
  }
  return { data: rows, asOf: end };
};

/**
 * A dark-pool page's cursor: the session and the instant the next page reads before
 * (prints are newest first). The spec leaves this endpoint's parameters open (note C);
 * an upstream that pages its prints is what lets an early window of a busy name be read.
 */
const DARK_CURSOR = /^dp-(\d{4}-\d{2}-\d{2})-(\d{1,15})$/;

function darkCursorOf(ctx: GeneratorContext): { session: Session; before: number } | undefined {
  const raw = stringParam(ctx, 'cursor');
  if (raw === undefined) return undefined;
  const match = DARK_CURSOR.exec(raw);
  const session = match?.[1] ? sessionOn(match[1]) : undefined;
  const before = Number(match?.[2]);
  if (!session || !(before > session.openAt && before <= session.closeAt))
    throw new DatasetRefusal('VALIDATION_ERROR', 'The cursor is invalid.', 'Pass _meta.next_cursor of the previous page unchanged.');
  return { session, before };
}

export const darkpoolByTicker: Generator = (ctx) => {
  const symbol = requireSymbol(ctx);
  const resume = darkCursorOf(ctx);
  const session = resume?.session ?? requestedSession(ctx);
  const end = resume ? resume.before - 1 : Math.min(ctx.now, session.closeAt);
  const rows: Row[] = [];
  const limit = limitOf(ctx, 50);
  const median = medianDarkSize(ctx.seed, symbol, session);
  let nextCursor: string | null = null;
  let lastAt = end;
  for (const { session: day, at } of gridBackwards(session, end, DARK_SPACING_MS)) {
    if (day.date !== session.date) break;
    const random = seededRandom(ctx.seed, 'dark', symbol.ticker, at);
    if (random() < 0.35) continue;
    if (rows.length >= limit) {
      // A print of this session lies past the page: the next page reads from the last one shown.
      nextCursor = `dp-${session.date}-${lastAt}`;
      break;
    }
    const size = Math.max(100, Math.round((median * Math.exp(DARK_SIZE_SIGMA * gaussian(random))) / 100) * 100);
    const price = round(priceAt(ctx.seed, symbol, at, day) * (1 + (random() - 0.5) * 0.001), 2);
    lastAt = at;
    rows.push({
      price_usd: price,
      size,
      notional_usd: Math.round(price * size),
      venue: pick(random, DARK_VENUES),
      executed_at: etIso(at),
      session_date_et: day.date,
    });
  }
  return { data: rows, asOf: end, nextCursor };
};
