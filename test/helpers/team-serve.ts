/** Starts the built binary with --http on a chosen port, as a team deployment would run it. */
import { createServer } from 'node:net';
import { startHttp, type StartedHttp } from './http-server.js';

/** A port free right now: the resource URL (the token's audience) must be known before start. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export type Served = StartedHttp;

/** `--http` on a port chosen before start: the token's audience names the resource URL, port included. */
export function serveHttp(port: number, env: Record<string, string>, args: string[] = []): Promise<Served> {
  return startHttp(env, { port, args });
}
