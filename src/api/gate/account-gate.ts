/**
 * The account gate: everything that keeps the account's limits, behind one narrow
 * interface. Limits are per account, shared by every key and process of it, so the gate
 * has two implementations: in this process (the default) and shared on Redis
 * (`MARKET_DATA_REDIS_URL`), with the in-process one as the fallback when Redis is gone.
 *
 * The client asks for a permit before each HTTP request and gives it back with what the
 * server said. Everything else (the policy table, retries, the cache) stays in the client.
 */
import type { CallContext } from '../call-context.js';
import type { AccountPart } from './account-share.js';

/** The server's limit headers, parsed and clamped (see LimitHeaders parsing in transport). */
export interface LimitHeaders {
  rateLimit?: number | undefined;
  rateRemaining?: number | undefined;
  /** Epoch milliseconds at which the server's rate window resets. */
  rateResetAt?: number | undefined;
  quotaLimit?: number | undefined;
  quotaRemaining?: number | undefined;
  /** Epoch milliseconds of the monthly quota reset. */
  quotaResetAt?: number | undefined;
}

/** One request that wants to go out. */
export interface PermitRequest {
  /**
   * Free endpoints (discover, health, openapi.json) pass the quota latch: they cost no
   * unit. They still take a turn of the rate window and an in-flight slot.
   */
  free: boolean;
  /** Epoch milliseconds by which the call must have answered. */
  deadline: number;
  signal: AbortSignal;
  /** Told once when the request has to wait, with the expected wait and why. */
  onWait?: ((waitMs: number, reason: string) => void) | undefined;
  /**
   * The tool call the request is sent for: the gates in front of the account's (src/team, src/observe)
   * read its caller and write its cost. Absent for the server's own requests.
   */
  call?: CallContext | undefined;
}

/** What the server said to a request sent under a permit. */
export interface PermitOutcome {
  /** HTTP status, or undefined when the request failed before any status line. */
  status?: number | undefined;
  headers?: LimitHeaders | undefined;
  /** The server's error code, when the answer was an error envelope. */
  code?: string | undefined;
}

/** The right to send exactly one HTTP request; give it back exactly once. */
export interface SendPermit {
  release(outcome: PermitOutcome): void;
}

export type GateMode = 'in-process' | 'redis';

export interface GateView {
  mode: GateMode;
  /** Why the mode is what it is (for example "redis unreachable: ECONNREFUSED; retrying"). */
  mode_reason: string | null;
  rate_limit_per_window: number;
  rate_remaining: number | null;
  rate_window_resets_at: string | null;
  paused_until: string | null;
  in_flight: number;
  queued: number;
  max_in_flight: number;
  quota_limit: number | null;
  quota_remaining: number | null;
  quota_resets_at: string | null;
  quota_exhausted: boolean;
  disabled: string[];
}

export interface AccountGate {
  /**
   * Waits for the account's turn (rate window, Retry-After pause, in-flight slot) and
   * resolves with a permit. Rejects with an ApiError, without sending anything, when:
   * the quota is latched and the request is not free (QUOTA_EXHAUSTED); the turn cannot
   * come before `deadline` (RATE_LIMITED, recoverable, with the retry_after_seconds it
   * would have needed); the signal aborts (CANCELLED).
   */
  acquire(request: PermitRequest): Promise<SendPermit>;
  /** RATE_LIMITED or CIRCUIT_OPEN with Retry-After: nobody on the account sends until then. */
  pause(untilMs: number): void;
  /** IN_FLIGHT_EXCEEDED: another process of the account is sending; shrink what this one sends at once. */
  inFlightRefused(): void;
  /** QUOTA_EXHAUSTED: data requests fail fast until `resetAtMs`; free ones still go. */
  latchQuota(resetAtMs: number): void;
  /** SERVICE_DISABLED: remember the capability as disabled until `untilMs`. */
  rememberDisabled(capability: string, untilMs: number): void;
  /** Seconds left of a remembered SERVICE_DISABLED, or undefined. */
  disabledFor(capability: string): Promise<number | undefined>;
  view(): Promise<GateView>;
  close(): Promise<void>;
  /**
   * As the fallback of a shared gate that is away: the account's processes cannot see
   * each other's requests, so keep to this process's part of its limits (src/api/gate/account-share.ts).
   */
  shareAccount?(part: AccountPart): void;
  /**
   * The server's limit headers on a request another gate of this process sent (the shared
   * gate's, for its fallback; the fallback's, for the shared gate it rejoins): the gate that
   * takes over then knows how much of the window is already spent.
   */
  heard?(headers: LimitHeaders): void;
}
