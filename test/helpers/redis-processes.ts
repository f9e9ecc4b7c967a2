/** Spawns driver processes (one "server process" each) and collects what they print. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { CallRecord, DriverSettings } from './redis-driver.js';

const DRIVER = fileURLToPath(new URL('./redis-driver.js', import.meta.url));

export interface Driver {
  child: ChildProcess;
  /** Resolves with the first event that matches. */
  next(match: (event: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  /** Resolves with the records of a load run. */
  done(): Promise<CallRecord[]>;
  kill(): void;
}

/** Every driver still running: a test file's `after` ends them (see `stopDrivers`). */
const running = new Set<ChildProcess>();

/**
 * Kills every driver this test file started that is still running. A child left alive
 * holds its pipes open, and node's test runner then waits for this file without end.
 */
export function stopDrivers(): void {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  running.clear();
}

export function startDriver(settings: DriverSettings): Driver {
  const child = spawn(process.execPath, [DRIVER, JSON.stringify(settings)], { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const events: Record<string, unknown>[] = [];
  const listeners = new Set<() => void>();
  let buffer = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line.trim()) events.push(JSON.parse(line) as Record<string, unknown>);
    }
    for (const listener of [...listeners]) listener();
  });
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const next: Driver['next'] = (match) =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const found = events.find(match);
        if (found) {
          listeners.delete(check);
          resolve(found);
        } else if (events.some((e) => 'fatal' in e)) {
          listeners.delete(check);
          reject(new Error(`driver failed: ${JSON.stringify(events)} ${stderr}`));
        }
      };
      listeners.add(check);
      check();
      void exited.then(() => {
        check();
        if (listeners.has(check)) {
          listeners.delete(check);
          reject(new Error(`driver exited without the expected event: ${JSON.stringify(events).slice(0, 500)} ${stderr}`));
        }
      });
    });
  return {
    child,
    next,
    done: async () => (await next((e) => e['done'] === true))['records'] as CallRecord[],
    kill: () => {
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
