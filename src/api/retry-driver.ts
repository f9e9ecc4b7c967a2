/**
 * One upstream call's attempts, by the policy table (ARCHITECTURE.md, "Behaviour per
 * upstream answer"). The driver owns the call's retry state (retries in all, waits of each
 * kind), takes a permit of the account gate for each attempt, and tells the gate once per
 * attempt what the answer means for the account: the permit goes back with the server's
 * word, and at most one note (pause, shrunk cap, quota latch, remembered capability) goes
 * with it. What to do with a failure is decided first, as a value (`Verdict`), so that the
 * rules can be read apart from the waiting and the gate.
 */
import { abortError, ApiError } from './errors.js';
import type { AccountGate, PermitOutcome } from './gate/account-gate.js';
import { mayRetry, RETRY_POLICY, retryDelayMs } from './retry-policy.js';
import type { CallContext } from './call-context.js';
import type { Flight } from './shared-request.js';

/** What a failure asks of the whole account, beyond giving the permit back. */
export type GateNote =
  | { kind: 'pause'; untilMs: number }
  | { kind: 'in-flight-refused' }
  | { kind: 'latch-quota'; resetAtMs: number }
  | { kind: 'remember-disabled'; capability: string; untilMs: number };

/** What the call does after a failed attempt. */
export type Verdict =
  | { act: 'fail'; error: ApiError; note: GateNote | undefined }
  | {
      act: 'retry';
      waitMs: number;
      /** Progress for the callers, in words. */
      message: string;
      note: GateNote | undefined;
      /** The gate holds the retry (the account is paused): nothing to sleep here. */
      gateWaits: boolean;
    };

/** One attempt's answer as the driver needs it. */
export type AttemptAnswer<T> =
  | { ok: true; value: T; outcome: PermitOutcome }
  | { ok: false; failed: ApiError; outcome: PermitOutcome; quotaResetAt: number | undefined };

export interface RetryDriverDeps {
  gate: AccountGate;
  now: () => number;
  random: () => number;
  /** Waits between retries; tests pass one that moves a fake clock. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
}

export interface DrivenCall<T> {
  flight: Flight;
  /** The call that started the request: every permit is asked for it (its caller's turn, its cost). */
  context?: CallContext | undefined;
  /** discover, health, openapi.json: they pass the quota latch, and a 429 neither pauses the account nor is retried. */
  free: boolean;
  /** Key under which SERVICE_DISABLED is remembered. */
  capability: string;
  /** Sends attempt number `attempt` (1-based) under a permit already held, and reads its answer. */
  send: (attempt: number) => Promise<AttemptAnswer<T>>;
}

/** Runs the call's attempts until one answers, the table says stop, or the next wait would cross the deadline. */
export async function driveRetries<T>(deps: RetryDriverDeps, call: DrivenCall<T>): Promise<T> {
  const retries = new CallRetries(deps, call);
  for (let attempt = 1; ; attempt += 1) {
    const permit = await deps.gate.acquire({
      free: call.free,
      deadline: call.flight.deadline(),
      signal: call.flight.signal,
      call: call.context,
      onWait: (ms, reason) =>
        call.flight.progress({ message: `Queued: ${reason}${ms > 0 ? `; about ${Math.ceil(ms / 1000)} s` : ''}.`, waitMs: ms }),
    });
    let released = false;
    let outcome: PermitOutcome = {};
    const release = (): void => {
      if (!released) permit.release(outcome);
      released = true;
    };
    try {
      const answer = await call.send(attempt);
      outcome = answer.outcome;
      if (answer.ok) return answer.value;
      const verdict = retries.decide(answer.failed, answer.quotaResetAt);
      // Another process of the account is sending: the whole process backs off, and this
      // call keeps its slot through the wait so that the next queued call is not refused
      // too. Every other answer gives the slot back before the gate hears the note.
      if (verdict.note?.kind !== 'in-flight-refused') release();
      if (verdict.note) tell(deps.gate, verdict.note);
      if (verdict.act === 'fail') throw verdict.error;
      await retries.wait(verdict);
    } finally {
      release();
    }
  }
}

/** The one place a note reaches the gate. */
function tell(gate: AccountGate, note: GateNote): void {
  switch (note.kind) {
    case 'pause':
      gate.pause(note.untilMs);
      return;
    case 'in-flight-refused':
      gate.inFlightRefused();
      return;
    case 'latch-quota':
      gate.latchQuota(note.resetAtMs);
      return;
    case 'remember-disabled':
      gate.rememberDisabled(note.capability, note.untilMs);
      return;
  }
}

/** One call's retry state, shared by every attempt; `decide` reads the policy table against it. */
export class CallRetries {
  /** Retries made so far, whatever they were for: one budget per call. */
  private retries = 0;
  /** Waits of each kind so far, for the backoff's exponent. */
  private readonly waits = new Map<string, number>();

  constructor(
    private readonly deps: Pick<RetryDriverDeps, 'now' | 'random' | 'sleep'>,
    private readonly call: Pick<DrivenCall<unknown>, 'flight' | 'free' | 'capability'>,
  ) {}

  /** What to do after `error`; counts the retry when the verdict is one. */
  decide(error: ApiError, quotaResetAt: number | undefined): Verdict {
    const rule = RETRY_POLICY[error.kind];
    if (this.call.free && error.status === 429) {
      // A free request (openapi.json, discover at start) that meets a spent window neither
      // pauses the account nor shrinks its cap, and is not retried into the data calls
      // that follow: its caller keeps what it has and asks again later.
      return { act: 'fail', error, note: undefined };
    }
    const now = this.deps.now();
    if (rule.kind === 'latch-quota') {
      return {
        act: 'fail',
        error,
        note: { kind: 'latch-quota', resetAtMs: quotaResetAt ?? now + (error.retryAfterSeconds ?? 3600) * 1000 },
      };
    }
    if (rule.kind === 'remember-disabled') {
      return { act: 'fail', error, note: { kind: 'remember-disabled', capability: this.call.capability, untilMs: now + rule.rememberMs } };
    }
    // The cap shrinks whether or not this call goes again.
    const refused: GateNote | undefined = rule.kind === 'in-flight' ? { kind: 'in-flight-refused' } : undefined;
    // A code this client does not know acts by its status, and a refusal (4xx) is final.
    const unknownRefusal = error.code !== error.kind && error.status !== null && error.status >= 400 && error.status < 500;
    if (unknownRefusal) return { act: 'fail', error, note: refused };
    const waits = (this.waits.get(rule.kind) ?? 0) + 1;
    const serverWait = error.retryAfterSeconds === undefined ? undefined : error.retryAfterSeconds * 1000;
    const wait = retryDelayMs(rule, waits, serverWait, this.deps.random);
    // The API asked the whole account to wait: the calls queued behind this one wait too, even
    // when this one answers now (they would only meet the same refusal, each one a request).
    const accountWaits = rule.kind === 'wait-server' && rule.pauseAccount;
    const failNote: GateNote | undefined = accountWaits ? { kind: 'pause', untilMs: now + wait } : refused;
    if (!mayRetry(rule, this.retries)) return { act: 'fail', error, note: failNote };
    this.waits.set(rule.kind, waits);
    if (now + wait > this.call.flight.deadline()) {
      // Answer now rather than let the host time the call out.
      return { act: 'fail', error: recoverableAfter(error, wait), note: failNote };
    }
    if (rule.kind !== 'poll') this.retries += 1;
    const seconds = Math.ceil(wait / 1000);
    if (accountWaits) {
      // The whole account waits, not just this call: the gate holds every queued call.
      return {
        act: 'retry',
        waitMs: wait,
        message: `${error.code}: the account pauses for ${seconds} s as the API asked.`,
        note: { kind: 'pause', untilMs: now + wait },
        gateWaits: true,
      };
    }
    return {
      act: 'retry',
      waitMs: wait,
      message:
        rule.kind === 'poll'
          ? `The API is building this dataset (202); checking again in ${seconds} s.`
          : `${error.code}: retrying in ${seconds} s.`,
      note: refused,
      gateWaits: false,
    };
  }

  /** Tells the callers why the call waits, and waits unless the gate does; throws when the call was left meanwhile. */
  async wait(verdict: Extract<Verdict, { act: 'retry' }>): Promise<void> {
    this.call.flight.progress({ message: verdict.message, waitMs: verdict.waitMs });
    if (verdict.gateWaits) return;
    const signal = this.call.flight.signal;
    await this.deps.sleep(verdict.waitMs, signal).catch(() => undefined);
    if (signal.aborted) throw abortError(signal);
  }
}

/** The same failure, made recoverable with the wait it would have needed. */
function recoverableAfter(error: ApiError, waitMs: number): ApiError {
  return error.with({ recoverable: true, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) });
}
