/**
 * The identity provider's signing keys (its JWKS), kept here rather than in jose's remote
 * key set, so that the server can tell the provider's trouble from a bad token:
 *
 * - keys that cannot be read (the JWKS down, answering 503 or garbage, the metadata
 *   unreachable) and none known yet: `IssuerUnavailableError`, answered 503 with
 *   Retry-After; jose's remote set made every valid token "not a valid signed JWT" (401);
 * - a token naming a key id the set does not hold: the set is fetched again at once (a key
 *   rotation), at most once every few seconds whatever tokens arrive; jose waited out a
 *   30 s cooldown and refused the new key meanwhile;
 * - a refresh that fails keeps the last good set in use.
 */
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWSHeaderParameters, type FlattenedJWSInput, type KeyObject } from 'jose';

export class IssuerUnavailableError extends Error {
  constructor(
    readonly detail: string,
    /** When a new attempt to read the keys may come. */
    readonly retryAfterSeconds: number,
  ) {
    super(`the identity provider's signing keys could not be read: ${detail}`);
    this.name = 'IssuerUnavailableError';
  }
}

export interface IssuerKeysOptions {
  /** Where the keys are: the configured JWKS URL, or found through the issuer's metadata. */
  locate: () => Promise<URL>;
  fetch?: typeof fetch;
  now?: () => number;
  /** A set older than this is fetched again (in the background while it still serves). */
  maxAgeMs?: number;
  /** Fetches for unknown key ids, and after a failure, at most this often. */
  minIntervalMs?: number;
  timeoutMs?: number;
}

type KeyLookup = (header: JWSHeaderParameters, token: FlattenedJWSInput) => Promise<KeyObject | Uint8Array>;

const MAX_AGE_MS = 10 * 60_000;
const MIN_INTERVAL_MS = 5000;
/** A load balancer's readiness probe waits on the key fetch: it must answer in a few seconds. */
const TIMEOUT_MS = 2000;

export class IssuerKeys {
  private set: { lookup: ReturnType<typeof createLocalJWKSet>; kids: Set<string>; at: number } | undefined;
  private fetching: Promise<void> | undefined;
  private lastAttemptAt = -Infinity;
  private lastForcedAt = -Infinity;
  private lastFailure: string | undefined;
  private readonly now: () => number;
  private readonly minIntervalMs: number;

  constructor(private readonly options: IssuerKeysOptions) {
    this.now = options.now ?? Date.now;
    this.minIntervalMs = options.minIntervalMs ?? MIN_INTERVAL_MS;
  }

  /** For jwtVerify: the key a token's header names, fetching the set again when it is not there. */
  readonly key: KeyLookup = async (header, token) => {
    await this.ensure();
    const known = this.set;
    if (!known) throw this.unavailable();
    const kid = header.kid;
    if (kid !== undefined && !known.kids.has(kid)) {
      // A key the set does not hold: a rotation the set has not seen yet, or a forged id.
      await this.refresh(true);
      const again = this.set;
      if (!again) throw this.unavailable();
      if (!again.kids.has(kid) && this.lastFailure !== undefined && again === known) throw this.unavailable();
      return again.lookup(header, token);
    }
    return known.lookup(header, token);
  };

  /** For /readyz: the keys can be read now. */
  async check(): Promise<{ ok: boolean; detail: string }> {
    try {
      await this.refresh(false, true);
      if (this.lastFailure !== undefined) return { ok: false, detail: `the issuer's keys could not be read: ${this.lastFailure}` };
      return { ok: true, detail: `${this.set?.kids.size ?? 0} signing keys` };
    } catch (error) {
      return { ok: false, detail: `the issuer's keys could not be read: ${error instanceof Error ? error.message : String(error)}` };
    }
  }

  /** A set to check tokens with: the one held, fetched first if there is none, refreshed behind when old. */
  private async ensure(): Promise<void> {
    if (!this.set) {
      await this.refresh(false);
      return;
    }
    if (this.now() - this.set.at > (this.options.maxAgeMs ?? MAX_AGE_MS)) void this.refresh(false).catch(() => undefined);
  }

  /**
   * Fetches the set unless one fetch is under way (joined) or one came too recently
   * (`force`: for an unknown key id; `always`: readiness, which asks at its own pace).
   */
  private refresh(force: boolean, always = false): Promise<void> {
    if (this.fetching) return this.fetching;
    const now = this.now();
    const since = (at: number): boolean => now - at < this.minIntervalMs;
    // Spaced: every attempt after a failure, and every fetch for an unknown key id (a flood
    // of tokens naming made-up ids must not become a flood of fetches at the provider).
    if (!always && this.lastFailure !== undefined && since(this.lastAttemptAt)) return Promise.resolve();
    if (!always && force && since(this.lastForcedAt)) return Promise.resolve();
    if (!always && !force && this.set !== undefined && this.lastFailure === undefined && since(this.lastAttemptAt))
      return Promise.resolve();
    this.lastAttemptAt = now;
    if (force) this.lastForcedAt = now;
    this.fetching = this.fetchSet().finally(() => (this.fetching = undefined));
    return this.fetching;
  }

  private async fetchSet(): Promise<void> {
    try {
      const url = await this.options.locate();
      const response = await (this.options.fetch ?? fetch)(url, {
        headers: { accept: 'application/json, application/jwk-set+json' },
        signal: AbortSignal.timeout(this.options.timeoutMs ?? TIMEOUT_MS),
      });
      if (!response.ok) {
        await response.body?.cancel();
        throw new Error(`HTTP ${response.status}`);
      }
      const body: unknown = await response.json().catch(() => undefined);
      if (!isKeySet(body)) throw new Error('the answer is not a JSON Web Key Set');
      const kids = new Set(body.keys.map((k) => k.kid).filter((kid): kid is string => typeof kid === 'string'));
      this.set = { lookup: createLocalJWKSet(body), kids, at: this.now() };
      this.lastFailure = undefined;
    } catch (error) {
      this.lastFailure = error instanceof Error ? error.message.slice(0, 160) : String(error);
    }
  }

  private unavailable(): IssuerUnavailableError {
    const wait = Math.max(1, Math.ceil((this.lastAttemptAt + this.minIntervalMs - this.now()) / 1000));
    return new IssuerUnavailableError(this.lastFailure ?? 'no answer yet', wait);
  }
}

function isKeySet(value: unknown): value is JSONWebKeySet {
  if (typeof value !== 'object' || value === null || !('keys' in value)) return false;
  const keys = value.keys;
  return Array.isArray(keys) && keys.length > 0 && keys.every((k) => typeof k === 'object' && k !== null && 'kty' in k);
}

/** Whether jose refused a token because no key of the set matched it (for the error told to the client). */
export function noMatchingKey(error: unknown): boolean {
  return error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys;
}
