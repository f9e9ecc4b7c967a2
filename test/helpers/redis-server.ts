/**
 * A throwaway redis-server on a free loopback port, for tests. When none is installed the
 * Redis tests are skipped, and say so by name (see `redisTest`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import { test } from 'node:test';

export function findRedisServer(): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    const candidate = join(dir, 'redis-server');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

const BINARY = findRedisServer();
const skipped: string[] = [];
process.once('exit', () => {
  if (skipped.length > 0) {
    process.stderr.write(
      `\nredis-server is not installed: skipped ${skipped.length} Redis tests:\n${skipped.map((n) => `  - ${n}`).join('\n')}\n`,
    );
  }
});

/** A test that needs redis-server: skipped, by name, when it is not installed. */
export function redisTest(name: string, options: { timeout?: number }, run: () => Promise<void>): void {
  if (!BINARY) {
    skipped.push(name);
    test(name, { skip: 'redis-server not installed (apt-get install redis-server)' }, () => undefined);
    return;
  }
  test(name, { timeout: options.timeout ?? 60_000 }, run);
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

export class ThrowawayRedis {
  private child: ChildProcess | undefined;
  private constructor(
    readonly port: number,
    private readonly extraArgs: readonly string[] = [],
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** `extraArgs`: more redis-server options, e.g. `['--requirepass', '…']`. */
  static async start(extraArgs: readonly string[] = []): Promise<ThrowawayRedis> {
    const redis = new ThrowawayRedis(await freePort(), extraArgs);
    await redis.restart();
    return redis;
  }

  /** Starts (again) on the same port: a Redis that comes back, empty. */
  async restart(): Promise<void> {
    if (!BINARY) throw new Error('redis-server not installed');
    const child = spawn(
      BINARY,
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...this.extraArgs],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      let seen = '';
      const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${seen}`)), 10_000);
      child.stdout?.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited (${code}): ${seen}`));
      });
    });
  }

  /** Freezes it (SIGSTOP): connections stay open and nothing answers, like a hung host. */
  freeze(): void {
    this.child?.kill('SIGSTOP');
  }

  thaw(): void {
    this.child?.kill('SIGCONT');
  }

  /** Kills it outright, as a crash would. */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
      child.kill('SIGCONT');
    });
  }
}
