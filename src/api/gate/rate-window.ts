/**
 * The account's request window, as the server counts it. The server's headers are the
 * truth: `X-RateLimit-Reset` names the window, `X-RateLimit-Remaining` says how much of
 * it the account (every process of it) has used. This process counts its own sends in
 * the window, so it knows how much of the server's count is other processes':
 * `others = used - sent` at the latest answer. What is left for this process is
 * `limit - sent - others`: a process alone uses the whole window, and requests in flight
 * that the server has already counted are never counted twice.
 *
 * When the server sends no rate headers (a gateway strips them), a local window of the
 * spec's length opens at the first request and rolls; it never stops for good.
 */
import { SPEC_LIMITS } from '../../catalog/index.js';
import { partOf, WHOLE_ACCOUNT, type AccountPart } from './account-share.js';

export interface RateHeaders {
  rateLimit?: number | undefined;
  rateRemaining?: number | undefined;
  /** Epoch milliseconds (local clock) at which the server's window resets. */
  rateResetAt?: number | undefined;
}

export interface RateWindowOptions {
  /** Requests per window until the server says otherwise (spec: 60 a minute). */
  limit?: number;
  /** Length of the local window used when the server sends no headers (spec: one minute). */
  localWindowMs?: number;
  /** Wait this long after the reset instant before counting on the new window (clock and rounding). */
  resetSlackMs?: number;
}

/** Resets closer than this belong to one window: skew correction moves them by up to a second. */
const SAME_WINDOW_MS = 1000;

export class RateWindow {
  private limit: number;
  private readonly localWindowMs: number;
  private readonly slackMs: number;
  /** End of the current window, or null when the last one ended and no new one is known. */
  private resetAt: number | null = null;
  private fromServer = false;
  /** This process's sends in the current window. */
  private sent = 0;
  /** Requests the server counted in this window that this process did not send. */
  private others = 0;
  /** Of `others`, those the server had counted by this process's first answer in the window. */
  private othersAtFirstAnswer = 0;
  /** What others spent in the last window beside this process: after its first answer there. */
  private othersBesideLastWindow = 0;
  private sentLastWindow = 0;
  private previousServerReset: number | null = null;
  private learnedLengthMs: number | null = null;
  private adoptedAt = 0;
  /** Whether the latest answer carried rate headers; undefined before any answer. */
  private lastAnswerHadHeaders: boolean | undefined;
  /** Counts windows, so that a late `untake` never touches the next one. */
  private generation = 0;
  /** This process's part of the account while its processes cannot see each other (see `shareAmong`). */
  private part: AccountPart = WHOLE_ACCOUNT;

  constructor(options: RateWindowOptions = {}) {
    this.limit = options.limit ?? SPEC_LIMITS.perWindow;
    this.localWindowMs = options.localWindowMs ?? SPEC_LIMITS.windowMs;
    this.slackMs = options.resetSlackMs ?? 25;
  }

  /** Requests this process may still send in the current window: what the account has left, and no more than its part. */
  available(now: number): number {
    return Math.max(0, Math.min(this.accountLeft(now), this.perWindow() - this.sent));
  }

  /** What the account as a whole has left of the current window, as far as this process knows. */
  accountLeft(now: number): number {
    this.roll(now);
    return Math.max(0, this.limit - this.sent - this.others);
  }

  /**
   * `parts` processes share the account and cannot see each other's sends as they happen
   * (their shared gate on Redis is away): this one keeps to its part of every window, at
   * least one request (src/api/gate/account-share.ts). WHOLE_ACCOUNT gives it the whole window again.
   */
  shareAmong(part: AccountPart): void {
    this.part = part;
  }

  /** What this process may send in a whole window. */
  private perWindow(): number {
    return partOf(this.limit, this.part);
  }

  /** True when another process of the account spent part of this window or the last. */
  othersActive(): boolean {
    return this.others > 0 || this.othersBesideLastWindow > 0;
  }

  /**
   * About how many other processes share the window, from how much they spent beside this
   * one (this window and the last): 0 when none was seen. Of the last window, only what
   * they spent after this process's first answer there counts: a client that spent a window
   * before this process began and then stopped (a spent window at start-up) is no rival in
   * the next, where keeping its last slot for it lost one and needed a sixth window for 300
   * calls.
   */
  rivalsSeen(): number {
    const others = this.others + this.othersBesideLastWindow;
    if (others <= 0) return 0;
    return Math.max(1, Math.round(others / Math.max(1, this.sent + this.sentLastWindow)));
  }

  /** The other processes to leave the window's last slots to: those seen, or those known to share it (`shareAmong`). */
  rivals(): number {
    return Math.max(this.rivalsSeen(), Math.floor(this.part.processes) - 1);
  }

  /**
   * The other processes certainly on the window: those known to share it, else one when
   * any spent beside this one. `rivalsSeen` is a ratio of spending, and a moment's ratio
   * (four of the others' requests beside this one's first, at a window's start) counts
   * four where there is one.
   */
  rivalsForCertain(): number {
    return Math.max(this.rivalsSeen() > 0 ? 1 : 0, Math.floor(this.part.processes) - 1);
  }

  /** When the budget refills: the end of the current window (plus slack), or now if no window is open. */
  refillsAt(now: number): number {
    this.roll(now);
    return this.resetAt === null ? now : this.resetAt + this.slackMs;
  }

  /** One request goes out now. With no window known, a local one opens. Returns the window's number, for `untake`. */
  take(now: number): number {
    this.roll(now);
    if (this.resetAt === null) {
      this.resetAt = now + this.localWindowMs;
      this.fromServer = false;
      this.adoptedAt = now;
    }
    this.sent += 1;
    return this.generation;
  }

  /**
   * A request refused with IN_FLIGHT_EXCEEDED may or may not count against the server's
   * window (the spec does not say). Not counting it as ours leaves the answer's headers to
   * decide: if the server counted it, it shows up in `used` and is taken as spent.
   */
  untake(generation: number, now: number): void {
    this.roll(now);
    if (generation === this.generation) this.sent = Math.max(0, this.sent - 1);
  }

  /** Aligns with the rate headers of an answer received now. Invalid or stale values were dropped by the parser or are ignored here. */
  observe(headers: RateHeaders, now: number): void {
    this.roll(now);
    if (headers.rateLimit !== undefined && headers.rateLimit > 0) this.limit = headers.rateLimit;
    const { rateRemaining: remaining, rateResetAt: reset } = headers;
    this.lastAnswerHadHeaders = remaining !== undefined && reset !== undefined;
    if (remaining === undefined || reset === undefined || reset <= now) return;
    const used = Math.max(0, this.limit - Math.min(remaining, this.limit));
    if (this.resetAt === null || !this.fromServer) {
      // The first answer in this window (or the first with headers at all): the server's window is the window.
      this.adopt(reset, now);
      this.others = Math.max(0, used - this.sent);
      this.othersAtFirstAnswer = this.others;
      return;
    }
    if (Math.abs(reset - this.resetAt) < SAME_WINDOW_MS) {
      this.others = Math.max(this.others, used - this.sent);
      return;
    }
    if (reset > this.resetAt) {
      // The server rolled before this process did: count everything it counted as spent.
      this.previousServerReset = this.resetAt;
      this.othersBesideLastWindow = this.others - this.othersAtFirstAnswer;
      this.sentLastWindow = this.sent;
      this.adopt(reset, now);
      this.generation += 1;
      this.sent = 0;
      this.others = used;
      this.othersAtFirstAnswer = used;
    }
    // An earlier reset: an answer from the last window, already superseded.
  }

  /**
   * The earliest instant at which a request with `ahead` requests queued before it can be
   * sent, by the window alone (undefined when that cannot be known yet).
   */
  turnAt(ahead: number, now: number): number | undefined {
    const left = this.available(now);
    if (ahead < left) return now;
    // A local window says nothing yet while the server's may come with the next answer.
    if (this.resetAt === null || (!this.fromServer && this.lastAnswerHadHeaders !== false)) return undefined;
    const windowsAfterThis = Math.floor((ahead - left) / this.perWindow());
    return this.resetAt + this.slackMs + windowsAfterThis * this.lengthMs();
  }

  /** The place (0 for the first) of a request with `ahead` queued before it among the requests of the window it goes in. */
  placeInItsWindow(ahead: number, now: number): number {
    const left = this.available(now);
    return ahead < left ? ahead : (ahead - left) % this.perWindow();
  }

  view(now: number): { limit: number; remaining: number | null; resetsAt: number | null; fromServer: boolean } {
    this.roll(now);
    return {
      limit: this.limit,
      remaining: this.resetAt === null ? null : this.available(now),
      resetsAt: this.resetAt,
      fromServer: this.fromServer,
    };
  }

  /** The window's length: learned from two consecutive resets, else at least what is left of the current one. */
  private lengthMs(): number {
    if (!this.fromServer) return this.localWindowMs;
    if (this.learnedLengthMs !== null) return this.learnedLengthMs;
    return Math.max(SAME_WINDOW_MS, (this.resetAt ?? 0) - this.adoptedAt);
  }

  private adopt(reset: number, now: number): void {
    if (this.previousServerReset !== null && reset - this.previousServerReset >= SAME_WINDOW_MS) {
      // After an idle gap the difference spans several windows; the smallest seen is the length.
      const length = reset - this.previousServerReset;
      this.learnedLengthMs = Math.min(this.learnedLengthMs ?? length, length);
    }
    this.resetAt = reset;
    this.fromServer = true;
    this.adoptedAt = now;
  }

  private roll(now: number): void {
    if (this.resetAt === null || now < this.resetAt + this.slackMs) return;
    if (this.fromServer) this.previousServerReset = this.resetAt;
    this.othersBesideLastWindow = this.others - this.othersAtFirstAnswer;
    this.sentLastWindow = this.sent;
    this.generation += 1;
    this.resetAt = null;
    this.fromServer = false;
    this.sent = 0;
    this.others = 0;
    this.othersAtFirstAnswer = 0;
  }
}
