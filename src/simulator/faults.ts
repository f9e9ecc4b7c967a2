/**
 * Fault injection for tests: what the real service does on a bad day, on demand.
 * Faults apply to data endpoints, after authentication and the limits have been counted.
 */
import type { ApiErrorCode } from '../catalog/index.js';

export type Fault =
  /** An error envelope with the code's status (or `status`), Retry-After where recoverable. */
  | { kind: 'error'; code: ApiErrorCode; status?: number; retryAfterSeconds?: number; hint?: string }
  /** A body that is not an envelope: an HTML proxy page, an empty body... */
  | { kind: 'raw'; status: number; body: string; contentType: string }
  /** The connection is destroyed before any response. */
  | { kind: 'reset' }
  /** A 200 whose JSON is cut short. */
  | { kind: 'malformed' }
  /** A 200 whose body arrives in small chunks with pauses in between. */
  | { kind: 'slow-drip'; chunkDelayMs: number; chunks?: number }
  /** A 200 padded to this many bytes. */
  | { kind: 'oversize'; bytes: number };

export class FaultPlan {
  private readonly queue: Fault[] = [];
  /** Latency added to every data request, holding its in-flight slot. */
  latencyMs = 0;
  private circuitOpenUntil = 0;

  /** The next `times` data responses take this fault. */
  inject(fault: Fault, times = 1): void {
    for (let i = 0; i < times; i += 1) this.queue.push(fault);
  }

  openCircuit(seconds: number, now = Date.now()): void {
    this.circuitOpenUntil = now + seconds * 1000;
  }

  circuitRetryAfter(now: number): number | undefined {
    return now < this.circuitOpenUntil ? Math.max(1, Math.ceil((this.circuitOpenUntil - now) / 1000)) : undefined;
  }

  take(): Fault | undefined {
    return this.queue.shift();
  }

  clear(): void {
    this.queue.length = 0;
    this.latencyMs = 0;
    this.circuitOpenUntil = 0;
  }
}
