/** Which sessions and days a request covers, resolved against the reference calendar. */
import {
  previousTradingDay,
  sessionOn,
  shiftDate,
  tradingDayOnOrBefore,
  tradingDaysBetween,
  type EtDate,
  type Session,
} from '../../catalog/market-calendar.js';
import { stringParam, type GeneratorContext } from './context.js';

/**
 * The session a request asks for: `session_date` when given (a holiday or weekend reads the
 * session before it, a future date the latest), else the latest session.
 */
export function requestedSession(ctx: GeneratorContext): Session {
  const asked = stringParam(ctx, 'session_date');
  if (asked === undefined || asked >= ctx.session.date) return ctx.session;
  return sessionOn(tradingDayOnOrBefore(asked)) ?? ctx.session;
}

/** Trading days in [from, to], newest first; `to` defaults to the latest session, `from` to `defaultDays` before. */
export function requestedDays(ctx: GeneratorContext, defaultDays: number, max = 2000): EtDate[] {
  const asked = stringParam(ctx, 'to');
  const latest = lastClosedDate(ctx);
  const to = asked !== undefined && asked < latest ? asked : latest;
  const from = stringParam(ctx, 'from') ?? shiftDate(to, -defaultDays);
  return tradingDaysBetween(from, to, max);
}

/** The close of a day's session, as the instant its daily figures are known. */
export function closeInstant(date: EtDate, ctx: GeneratorContext): number {
  return Math.min(sessionOn(date)?.closeAt ?? ctx.now, ctx.now);
}

/** The latest session whose close has happened: daily figures of a live session are not out yet. */
export function lastClosedDate(ctx: GeneratorContext): EtDate {
  return ctx.now >= ctx.session.closeAt ? ctx.session.date : previousTradingDay(ctx.session.date);
}
