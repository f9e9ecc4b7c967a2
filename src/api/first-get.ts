/**
 * A GET through node:http(s), for the one request a first start waits on: the upstream's
 * openapi.json when no disk copy exists. undici costs 60 to 150 ms and about 20 MiB to
 * load; node:http is part of node and costs a few ms (start-up time, BENCHMARKS.md).
 * undici still serves every data call; it loads with the first one. The answer has the
 * shape HttpTransport reads from undici, so status, caps and errors are judged the same.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

export interface SentResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: AsyncIterable<Buffer> & { dump(options?: { limit: number }): Promise<void>; destroy(): void };
}

export interface FirstGetOptions {
  headers: Record<string, string>;
  signal: AbortSignal;
  /** Longest silence on the socket (connect, headers or body), as undici's timeouts bound it. */
  idleTimeoutMs: number;
}

export async function firstGet(url: URL, options: FirstGetOptions): Promise<SentResponse> {
  const { request } = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise((resolve, reject) => {
    // agent: false: one connection, closed after the answer, so nothing keeps the process alive.
    const sent = request(url, { method: 'GET', headers: options.headers, signal: options.signal, agent: false }, (response) =>
      resolve({ statusCode: response.statusCode ?? 0, headers: response.headers, body: readable(response) }),
    );
    sent.setTimeout(options.idleTimeoutMs, () =>
      sent.destroy(Object.assign(new Error('the API did not answer in time'), { code: 'ETIMEDOUT' })),
    );
    sent.once('error', reject);
    sent.end();
  });
}

function readable(response: IncomingMessage): SentResponse['body'] {
  return Object.assign(response, {
    dump: (options?: { limit: number }): Promise<void> => {
      if (options?.limit === 0 || response.readableEnded) {
        response.destroy();
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        response.once('close', resolve);
        response.resume();
      });
    },
  });
}
