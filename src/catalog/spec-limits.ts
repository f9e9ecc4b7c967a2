/**
 * The account's limits as the spec states them (Rate limits section), in one place: the
 * gate assumes them until the server's headers say otherwise, and the simulator enforces
 * them unless a test asks for others.
 */
export const SPEC_LIMITS = {
  /** Requests per window per account. */
  perWindow: 60,
  /** Requests per window per client IP. */
  perIpPerWindow: 200,
  /** The window: one minute, fixed. */
  windowMs: 60_000,
  /** Requests in flight per account. */
  inFlight: 5,
  /** Units a month. */
  monthlyQuota: 100_000,
} as const;
