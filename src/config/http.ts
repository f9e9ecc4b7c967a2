/**
 * The --http transport's settings: its bearer token, the Host names it answers to, the
 * connections it holds and how long a shutdown lets calls finish. Read once at start;
 * the transport is handed the frozen result (src/transports/).
 */
import * as z from 'zod';
import { HTTP_ENV } from './env-vars.js';
import { readSection, setValues, wholeNumber, type ConfigProblem } from './section.js';

/** A shorter token is guessable; the check is on its length only, so the token is never shown. */
export const MIN_TOKEN_LENGTH = 16;
/** Enough for a team's agents and their streams; a flood beyond it is refused at accept. */
export const DEFAULT_MAX_CONNECTIONS = 256;
/** How long a shutdown may spend closing connections before the process ends anyway, by default. */
export const EXIT_GRACE_MS = 3000;
/** The shortest grace --http accepts: the last second of it is kept for answering the calls it stops. */
export const MIN_GRACE_MS = 2000;
/** The longest a timer waits (2^31 - 1 ms): a longer one would fire at once. */
const MAX_GRACE_MS = 2_147_483_647;

/** A DNS name or an IPv4 address, or an IPv6 address in brackets, as a Host header names it without its port. */
const HOST_NAME = /^(?:[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?|\[[0-9a-f:.]+\])$/;

const schema = z.object({
  token: z.string().trim().min(MIN_TOKEN_LENGTH, `is shorter than ${MIN_TOKEN_LENGTH} characters`).optional(),
  /** Host names (no port) a request's Host header may name, besides loopback's when bound to it. */
  allowedHosts: z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((host) => host.trim().toLowerCase())
        .filter(Boolean),
    )
    // A Host header names only such characters; anything else is a mistake (a port, a URL)
    // or a value that would act on the terminal where the start-up lines list the names.
    .refine((hosts) => hosts.every((host) => HOST_NAME.test(host)), {
      error: 'is not a list of host names (letters, digits, dots and dashes, or an [IPv6] address; no port)',
    })
    .default([]),
  maxConnections: wholeNumber('connections', 1, 1_000_000).default(DEFAULT_MAX_CONNECTIONS),
  /**
   * A deployment whose orchestrator waits longer (Kubernetes: 30 s) may let calls in flight
   * finish rather than answer them CANCELLED after 2 s.
   */
  shutdownGraceMs: wholeNumber(
    'milliseconds',
    MIN_GRACE_MS,
    MAX_GRACE_MS,
    `is below ${MIN_GRACE_MS} ms, the last second of which answers the calls stopped`,
  ).default(EXIT_GRACE_MS),
});

export type HttpSettings = Readonly<z.infer<typeof schema>>;

export interface HttpSection {
  readonly settings: HttpSettings;
  /** Said at start: the value given was replaced by the one named. */
  readonly warnings: readonly ConfigProblem[];
  /** The transport must not start with these (a token too short to keep anyone out). */
  readonly problems: readonly ConfigProblem[];
}

export function httpSettings(env: NodeJS.ProcessEnv): HttpSection {
  return readSection(schema, setValues(env, HTTP_ENV), {
    names: HTTP_ENV,
    shown: { token: 'secret' },
    clamped: new Set(['shutdownGraceMs']),
    essential: new Set(['token']),
  });
}
