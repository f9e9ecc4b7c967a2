/**
 * The account gate with eyes: every permit's wait and every upstream answer is counted
 * in the metrics and in the record of the call that asked for it (the request's `call`). The gate's behaviour
 * is the wrapped gate's, unchanged.
 */
import type { AccountGate, PermitOutcome, PermitRequest, SendPermit } from '../api/gate/account-gate.js';
import { GateDecorator } from '../api/gate/gate-decorator.js';
import { statusLabel, type TeamMetrics } from './metrics.js';

export class ObservedGate extends GateDecorator {
  constructor(
    inner: AccountGate,
    private readonly metrics: TeamMetrics,
    private readonly now: () => number = Date.now,
    /** The account's units on Redis, shared by its nodes (units-ledger.ts). */
    private readonly units?: { charged(): void },
  ) {
    super(inner);
  }

  override async acquire(request: PermitRequest): Promise<SendPermit> {
    const record = request.call?.record;
    const started = this.now();
    const permit = await this.inner.acquire(request);
    const waited = this.now() - started;
    this.metrics.gateWait.observe(waited / 1000);
    if (record) record.gateWaitMs += waited;
    let released = false;
    return {
      release: (outcome: PermitOutcome) => {
        if (!released) {
          released = true;
          this.metrics.upstreamResponses.inc({ status: statusLabel(outcome.status) });
          // The spec's charge rule: a data request answered 200 costs one unit; nothing else does.
          const charged = outcome.status === 200 && !request.free;
          if (charged) {
            this.metrics.unitsSpent.inc();
            this.units?.charged();
          }
          if (record) {
            record.upstreamRequests += 1;
            if (charged) record.units += 1;
          }
        }
        permit.release(outcome);
      },
    };
  }
}
