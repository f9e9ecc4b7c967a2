/** The simulator's request context, and the one error type its checks throw. */
import type { Http2Bindings, HttpBindings } from '@hono/node-server';
import type { ApiErrorCode, DatasetDefinition, QueryValues } from '../catalog/index.js';
import type { SimAccount, SimKey } from './accounts.js';
import type { PageRequest } from './dialect-params.js';
import type { Fault } from './faults.js';
import type { ReferenceSymbol } from './reference.js';

export interface FailDetails {
  message?: string;
  hint?: string;
  retryAfterSeconds?: number;
  /** A status other than the code's own (fault injection). */
  status?: number;
}

/** A refusal with its spec code; the app's error handler writes it as the envelope. */
export class ApiRefusal extends Error {
  constructor(
    readonly code: ApiErrorCode,
    readonly details: FailDetails = {},
  ) {
    super(details.message ?? code);
  }
}

export interface SimEnv {
  // The server is node:http; the adapter's type also admits HTTP/2, which needs nothing more here.
  Bindings: HttpBindings | Http2Bindings;
  Variables: {
    requestId: string;
    /** The simulator's clock at arrival (injectable). */
    now: number;
    key: SimKey | undefined;
    account: SimAccount | undefined;
    /** Set on dataset routes only. */
    dataset: DatasetDefinition | undefined;
    ticker: string | undefined;
    /** In our names, once the dialect's are read back (dialect-params.ts). */
    query: QueryValues;
    /** What the request asked of the dialect's paging. */
    page: PageRequest;
    symbol: ReferenceSymbol | undefined;
    /** A fault that shapes the 200 body (malformed, slow drip, oversize). */
    shape: Fault | undefined;
    reset: boolean;
    code: ApiErrorCode | undefined;
    charged: boolean;
    retryAfterSeconds: number | undefined;
  };
}

/** The dataset of a dataset route (set by its first middleware). */
export function currentDataset(c: { get(key: 'dataset'): DatasetDefinition | undefined }): DatasetDefinition {
  const dataset = c.get('dataset');
  if (!dataset) throw new ApiRefusal('INTERNAL_ERROR', { message: 'A dataset check ran outside a dataset route.' });
  return dataset;
}
