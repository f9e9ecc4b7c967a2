/** A call context for tests that drive the client or a gate directly, as a tool call would. */
import { newCallContext, type CallContext } from '../../src/api/call-context.js';
import type { Caller } from '../../src/auth/caller.js';

/** A call that `signal` cancels, of `caller` when given; its deadline is an hour off (tests set their own per request). */
export function testCall(options: { signal?: AbortSignal; caller?: Caller } = {}): CallContext {
  return newCallContext({ caller: options.caller, signals: [options.signal], deadline: Date.now() + 3_600_000 });
}
