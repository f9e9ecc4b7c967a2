/**
 * A GET through node:http(s): every request to the API, the first start's openapi.json
 * and every data call. undici served the data calls until it was measured: loading it and
 * compiling its WebAssembly HTTP parser cost about 26 MiB resident for good and more at
 * the peak (bench/soak-memory.mjs), which node:http, part of node with a native parser,
 * does not. The answer has the shape HttpTransport reads, so status, caps and errors are
 * judged the same whichever request it was.
 */
import type { Agent, IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';

export interface SentResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: Readable & { dump(options?: { limit: number }): Promise<void> };
}

export interface HttpGetOptions {
  headers: Record<string, string>;
  signal: AbortSignal;
  /** Longest silence on the socket (connect, headers or body). */
  idleTimeoutMs: number;
  /** Keep-alive connections to the origin; without one, one connection closed after the answer. */
  agent?: Agent | undefined;
}

/** Loaded at the first request of each kind, once: node:https (tls) only for an https origin. */
let http: Promise<typeof import('node:http')> | undefined;
let https: Promise<typeof import('node:https')> | undefined;

export async function httpGet(url: URL, options: HttpGetOptions): Promise<SentResponse> {
  const { request } = url.protocol === 'https:' ? await (https ??= import('node:https')) : await (http ??= import('node:http'));
  // A kept-alive connection the server closes as we reuse it fails like any reset: it is not
  // sent again here, since the request may have reached the API and been charged; the
  // client's retry policy decides, and counts it (node closes idle connections before the
  // server's announced keep-alive ends, which makes this rare).
  return new Promise((resolve, reject) => {
    const sent = request(
      url,
      { method: 'GET', headers: options.headers, signal: options.signal, agent: options.agent ?? false },
      (response) => resolve({ statusCode: response.statusCode ?? 0, headers: response.headers, body: readable(response) }),
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
