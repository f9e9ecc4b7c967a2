/**
 * Fair in time, not only in order: the account's window handed out across the window
 * rather than in its first second. The fair-share gate gives each turn to the member whose
 * turn it is, but a turn only comes when the window has a request left; a member who
 * bursts would otherwise take every request of the window as fast as the in-flight slots
 * allow, and another member's single call would wait for the next window (up to a whole
 * minute with the spec's window).
 *
 * The pace is a plan for the window: from the moment a node first sees it (or last found
 * it under-spent), what is left is to be spent evenly by the reset. A request goes while
 * the window is no more than `burst` requests ahead of that plan (fewer as the reset nears:
 * the burst shrinks with the window's time left, not the plan's), so after a quiet spell a
 * few go at once, and a busy member then gets one request every `timeLeft / left`. A member
 * who starts waiting gets a turn within about one pacing interval (the window's length
 * over its limit: 1 s for the spec's 60 a minute), and the window is still spent whole:
 * the plan reaches 0 at the reset. The plan is judged against what the whole account has
 * left (on Redis, every node's requests), so several nodes pacing together keep one pace,
 * not one each.
 *
 * Only while the team has more than one member: one member alone (the static token, a
 * quiet desk) keeps the whole window at once, as before.
 */
import type { Clock } from '../api/gate/clock.js';

/** The window as the account gate sees it (its view): requests left, and when it resets. */
export interface WindowNow {
  remaining: number | null;
  /** Epoch milliseconds of the reset, or null when no window is open. */
  resetsAt: number | null;
}

export interface PacerOptions {
  clock: Clock;
  /** Requests that may go at once after a quiet spell (by default the account's 5 in flight). */
  burst?: number;
  /** A member is counted as part of the team this long after their last call. */
  memberMemoryMs?: number;
}

/** How long members who have stopped calling still count: a member who called ten minutes ago may well call again. */
const MEMBER_MEMORY_MS = 15 * 60_000;
/** The longest the pump sleeps on the pace alone: an answer or a new window may change the pace sooner. */
export const MAX_PACE_SLEEP_MS = 1000;

/** Resets closer than this are one window (as the account gate's rate window counts them). */
const SAME_WINDOW_MS = 1000;

/** Spend `left` requests evenly from `from` until `reset`. */
interface Plan {
  reset: number;
  from: number;
  left: number;
}

export class WindowPacer {
  private readonly clock: Clock;
  private readonly burst: number;
  private readonly memberMemoryMs: number;
  private plan: Plan | undefined;
  /** When this node first saw the current window: a plan made again later in it is still late in the window. */
  private opened: { reset: number; at: number } | undefined;
  /** The window's length, from the two nearest resets seen one after the other (after an idle gap they span several). */
  private lengthMs: number | undefined;
  /** What the window had left when last seen, and since when: the account's last request, as near as this node can tell. */
  private lastSeen: { reset: number; remaining: number; since: number } | undefined;
  private readonly members = new Map<string, number>();

  constructor(options: PacerOptions) {
    this.clock = options.clock;
    this.burst = Math.max(1, options.burst ?? 5);
    this.memberMemoryMs = options.memberMemoryMs ?? MEMBER_MEMORY_MS;
  }

  /** A member asked for a turn. */
  saw(member: string): void {
    this.members.set(member, this.clock.now());
  }

  /** Whether the window is paced: more than one member called lately. */
  pacing(): boolean {
    const now = this.clock.now();
    let recent = 0;
    for (const [member, at] of this.members) {
      if (now - at > this.memberMemoryMs) this.members.delete(member);
      else recent += 1;
    }
    return recent > 1;
  }

  /**
   * How long the next request should wait for its place in the pace (0: it may go now).
   * With no window open, or none left, the account gate alone decides.
   */
  delay(window: WindowNow): number {
    if (!this.pacing()) return 0;
    const now = this.clock.now();
    const { remaining, resetsAt } = window;
    if (remaining === null || resetsAt === null || resetsAt <= now || remaining <= 0) return 0;
    const lastSent = this.lastSent(remaining, resetsAt, now);
    const windowSpan = this.windowSpan(resetsAt, now);
    let plan = this.plan;
    // The same window, seen again: a shared gate's reset moves by a few milliseconds from one view to the next.
    if (plan && Math.abs(plan.reset - resetsAt) < SAME_WINDOW_MS) plan.reset = resetsAt;
    // What the plan expects to be left now; a window spent more slowly than planned is planned again from here.
    const expected = plan && plan.reset === resetsAt ? (plan.left * (resetsAt - now)) / (resetsAt - plan.from) : -Infinity;
    if (!plan || remaining >= expected) {
      plan = { reset: resetsAt, from: now, left: remaining };
      this.plan = plan;
      return 0;
    }
    // Ahead of the plan by no more than the burst, which shrinks to one request as the reset
    // nears: a burst at the end would spend the window before it ends, and a member who asks
    // then would wait for the next one. It shrinks with the share of the window left, not
    // of the plan's span: late in a window the pump wakes just when the plan expects what is
    // left (or later), the plan is made again from there, and a burst measured on the new
    // plan's span was whole again, so the burst's queued calls took the window's last five
    // requests at once (5.4 s into 6 s windows) and a light call asked then waited for the next.
    const spanShare = (resetsAt - plan.from) / windowSpan;
    const burst = this.burst * spanShare;
    const share = (resetsAt - now) / (resetsAt - plan.from);
    if (expected - (remaining - 1) <= Math.max(1, burst * share)) return 0;
    // Otherwise when the plan has come down that far: as a share of the plan's span, the
    // later of the two bounds (one ahead, or the shrinking burst ahead).
    const { left } = plan;
    const until = Math.max(remaining / left, left > burst ? (remaining - 1) / (left - burst) : 0);
    const planned = resetsAt - until * (resetsAt - plan.from);
    // Never later than one interval at the pace what is left allows (the time left over the
    // requests left) after the account's last request: a node's plan is its own, made when it
    // first saw the window, and with several nodes sending, a plan stricter than the others'
    // held this node's members back for seconds while the others went on.
    const interval = (resetsAt - now) / remaining;
    const at = Math.min(planned, lastSent + interval);
    if (at <= now) return 0;
    return Math.min(MAX_PACE_SLEEP_MS, Math.max(1, Math.ceil(at - now)));
  }

  /**
   * How long the current window is, as far as this node can tell: its length as learned from
   * the resets seen, and at least from this node's first sight of it to its reset.
   */
  private windowSpan(resetsAt: number, now: number): number {
    let opened = this.opened;
    if (opened && Math.abs(opened.reset - resetsAt) < SAME_WINDOW_MS) opened.reset = resetsAt;
    else {
      // A later window: the gap between the two resets is its length (several, after an idle spell: the least is kept).
      if (opened && resetsAt > opened.reset) this.lengthMs = Math.min(this.lengthMs ?? Infinity, resetsAt - opened.reset);
      opened = { reset: resetsAt, at: now };
      this.opened = opened;
    }
    return Math.max(1, resetsAt - opened.at, this.lengthMs ?? 0);
  }

  /** When the window last lost a request, as this node saw it: now, when it has changed since the last look. */
  private lastSent(remaining: number, resetsAt: number, now: number): number {
    const seen = this.lastSeen;
    if (!seen || Math.abs(seen.reset - resetsAt) >= SAME_WINDOW_MS || seen.remaining !== remaining) {
      this.lastSeen = { reset: resetsAt, remaining, since: now };
      return now;
    }
    seen.reset = resetsAt;
    return seen.since;
  }
}
