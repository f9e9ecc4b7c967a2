/**
 * One signal for a call: it aborts when any of its sources does (the host's cancellation,
 * an HTTP caller that hung up) or when the call's deadline passes. One controller and one
 * timer, let go of when the call ends: `AbortSignal.timeout` left a timer alive for the
 * whole deadline after every call, and `AbortSignal.any` kept weak references to follow,
 * both per call, for what a call that answered in a few milliseconds never needed.
 */
export interface CallSignal {
  readonly signal: AbortSignal;
  /** The call ended: no timer or listener of it is left behind. */
  done(): void;
}

export function callSignal(sources: readonly (AbortSignal | undefined)[], deadlineMs: number): CallSignal {
  const controller = new AbortController();
  const listening: [AbortSignal, () => void][] = [];
  const done = (): void => {
    clearTimeout(timer);
    for (const [source, listener] of listening) source.removeEventListener('abort', listener);
    listening.length = 0;
  };
  const abort = (reason: unknown): void => {
    done();
    controller.abort(reason);
  };
  // The reason AbortSignal.timeout gives, so that a deadline reads as one wherever it is seen.
  const timer = setTimeout(() => abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), deadlineMs);
  timer.unref();
  for (const source of sources) {
    if (!source) continue;
    if (source.aborted) {
      abort(source.reason);
      break;
    }
    const listener = (): void => abort(source.reason);
    source.addEventListener('abort', listener, { once: true });
    listening.push([source, listener]);
  }
  return { signal: controller.signal, done };
}
