/** The built binary serving --http: the one way tests start it (port 0 unless a test needs to know it first). */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { CLI, serverEnv } from './mcp.js';

export interface StartedHttp {
  child: ChildProcessWithoutNullStreams;
  url: string;
  stderr: () => string;
  /** SIGTERM, then the exit (at once when it has already exited). */
  stop: () => Promise<void>;
}

export interface HttpStart {
  /** Arguments after `--http --port N` (e.g. `--demo`, `--host`). */
  args?: string[];
  /** Arguments to node itself (e.g. `--expose-gc`). */
  nodeArgs?: string[];
  /** 0 for any free port; a team test fixes one because the token's audience names it. */
  port?: number;
}

/**
 * Starts `dist/cli.js --http` with `env` (over serverEnv's defaults) and resolves once it
 * listens and has said which Host names it allows (its last start-up line), or rejects with
 * its stderr if it exits first.
 */
export async function startHttp(env: Record<string, string>, start: HttpStart = {}): Promise<StartedHttp> {
  const { args = [], nodeArgs = [], port = 0 } = start;
  const child = spawn(process.execPath, [...nodeArgs, CLI, '--http', '--port', String(port), ...args], {
    env: serverEnv({ env }),
    stdio: 'pipe',
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (match?.[1] && /Allowed Host names/.test(stderr)) resolve(match[1]);
    });
    child.once('exit', () => reject(new Error(stderr)));
  });
  return { child, url, stderr: () => stderr, stop: () => stopHttp(child) };
}

export async function stopHttp(child: ChildProcessWithoutNullStreams): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/** A tools/call posted as a raw HTTP request (the transport is stateless: no initialize needed). */
export function postCall(
  url: string,
  token: string,
  call: { name: string; arguments: Record<string, unknown> },
  init: { signal?: AbortSignal; id?: number; progressToken?: number } = {},
): Promise<Response> {
  const params = init.progressToken === undefined ? call : { ...call, _meta: { progressToken: init.progressToken } };
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: init.id ?? 1, method: 'tools/call', params }),
    ...(init.signal ? { signal: init.signal } : {}),
  });
}

/** Reads a streamed answer until `seen` holds for the text so far (or the stream ends); returns that text. */
export async function readUntil(response: Response, seen: (text: string) => boolean): Promise<string> {
  const reader = (response.body as WebReadableStream<Uint8Array> | null)?.getReader();
  if (!reader) return '';
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) return text;
      text += decoder.decode(chunk.value, { stream: true });
      if (seen(text)) return text;
    }
  } finally {
    reader.releaseLock();
  }
}
