/**
 * Identical concurrent calls share one upstream request. The request keeps the set of
 * callers waiting on it: each gets its own progress and leaves on its own signal (its
 * cancellation or its deadline) and hears nothing after; retries follow the latest
 * deadline among those still waiting; the upstream request is aborted when the last
 * caller leaves.
 */
export interface SharedProgress {
  message: string;
  waitMs: number;
}

export interface Caller {
  signal: AbortSignal;
  deadline: number;
  onProgress?: ((event: SharedProgress) => void) | undefined;
  /**
   * The error this caller gets when its signal fires, told what the request cost so far:
   * false when nothing was sent or every answer was free, true once a charged answer's
   * status line arrived, undefined while a request is out with no status yet.
   */
  leaveError: (charged: boolean | undefined) => Error;
}

/** What the request itself sees of its callers. */
export interface Flight {
  /** Aborted when the last caller has left. */
  readonly signal: AbortSignal;
  /** The latest deadline of the callers still waiting: no retry is planned past it. */
  deadline(): number;
  /** Tells every caller still waiting. */
  progress(event: SharedProgress): void;
  /** A request is out: what it costs is not known until its status line arrives. */
  sending(): void;
  /** The status line arrived: whether that answer costs a unit (a 200 of a data request). */
  answered(charged: boolean): void;
}

interface Entry<T> {
  readonly controller: AbortController;
  readonly callers: Set<Caller>;
  readonly promise: Promise<T>;
  charged: boolean | undefined;
}

export class SharedRequests<T> {
  private readonly underWay = new Map<string, Entry<T>>();

  /** Joins the request under way for `key`, or starts it with `start`. */
  join(key: string, start: (flight: Flight) => Promise<T>, caller: Caller): Promise<T> {
    if (caller.signal.aborted) return Promise.reject(caller.leaveError(false));
    let entry = this.underWay.get(key);
    if (!entry) entry = this.begin(key, start, caller);
    else entry.callers.add(caller);
    const current = entry;
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        if (!current.callers.delete(caller)) return;
        const error = caller.leaveError(current.charged);
        if (current.callers.size === 0) current.controller.abort(error);
        reject(error);
      };
      caller.signal.addEventListener('abort', onAbort, { once: true });
      const settle = (): boolean => {
        caller.signal.removeEventListener('abort', onAbort);
        return current.callers.delete(caller);
      };
      current.promise.then(
        (value) => {
          if (settle()) resolve(value);
        },
        (error: unknown) => {
          if (settle()) reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  private begin(key: string, start: (flight: Flight) => Promise<T>, first: Caller): Entry<T> {
    const controller = new AbortController();
    const callers = new Set<Caller>([first]);
    const flight: Flight = {
      signal: controller.signal,
      deadline: () => Math.max(...[...callers].map((c) => c.deadline)),
      progress: (event) => {
        for (const caller of callers) caller.onProgress?.(event);
      },
      sending: () => {
        // A charged answer is never retried: once charged, the flight stays so.
        if (entry.charged !== true) entry.charged = undefined;
      },
      answered: (charged) => {
        if (entry.charged !== true) entry.charged = charged;
      },
    };
    const entry: Entry<T> = { controller, callers, promise: Promise.resolve().then(() => start(flight)), charged: false };
    const promise = entry.promise;
    const forget = (): void => {
      if (this.underWay.get(key) === entry) this.underWay.delete(key);
    };
    promise.then(forget, forget);
    this.underWay.set(key, entry);
    return entry;
  }
}
