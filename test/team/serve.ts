/** Starts the built binary with --http on a chosen port, as a team deployment would run it. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer } from 'node:net';
import { CLI, serverEnv } from '../helpers/mcp.js';

/** A port free right now: the resource URL (the token's audience) must be known before start. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export interface Served {
  child: ChildProcessWithoutNullStreams;
  url: string;
  stderr(): string;
  stop(): Promise<void>;
}

export async function serveHttp(port: number, env: Record<string, string>, args: string[] = []): Promise<Served> {
  const child = spawn(process.execPath, [CLI, '--http', '--port', String(port), ...args], { env: serverEnv({ env }), stdio: 'pipe' });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', () => reject(new Error(stderr)));
  });
  return {
    child,
    url,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
