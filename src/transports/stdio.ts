/**
 * stdio: stdout carries only MCP messages. The transport gets the real stdout; every
 * other writer in the process (console.log in a dependency, a stray process.stdout.write)
 * is sent to stderr instead, so nothing can corrupt the protocol channel.
 */
import { Writable } from 'node:stream';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { markingTransport } from '../mcp/arguments/prototype-guard.js';
import { createLiveServer, offeredToolCount, type LiveServer } from '../mcp/server.js';
import type { Runtime } from '../runtime.js';
import { exitAfter } from './exit.js';

function claimStdout(): Writable {
  // eslint-disable-next-line no-restricted-properties -- the one place that owns stdout
  const stdout = process.stdout;
  const write = stdout.write.bind(stdout);
  const protocol = new Writable({
    // Each message goes to stdout as the string it was serialized to: made into a Buffer here, a
    // result's 20 kB were copied once more a call, for stdout to write the same bytes.
    decodeStrings: false,
    write(chunk: Buffer | string, encoding, done) {
      write(chunk, encoding, (error) => done(error ?? null));
    },
  });
  const toStderr = (...args: Parameters<typeof process.stderr.write>): boolean => process.stderr.write(...(args as [string]));
  stdout.write = toStderr as typeof stdout.write;
  for (const method of ['log', 'info', 'debug'] as const) {
    // eslint-disable-next-line no-console -- redirecting, not logging
    console[method] = (...args: unknown[]) => process.stderr.write(`${args.map(String).join(' ')}\n`);
  }
  return protocol;
}

export function serveOverStdio(runtime: Runtime): void {
  // Our transport, wrapped: an own __proto__ argument is renamed before the SDK's parse drops it (mcp/prototype-guard.ts).
  const transport = markingTransport(
    new StdioServerTransport(process.stdin, claimStdout(), { maxBufferSize: STDIO_DEFAULT_MAX_BUFFER_SIZE }),
  );
  let exiting = false;
  // The instance serving the session, its tool list following the registry.
  let live: LiveServer | undefined;
  const shutdown = (code: number): void => {
    if (exiting) return;
    exiting = true;
    exitAfter(
      handle.close().then(() => {
        live?.stop();
        return runtime.close();
      }),
      code,
    );
  };
  const serving = (): LiveServer['server'] => {
    // A second instance is made only when the SDK discarded the first (a server/discover probe
    // answered by a client that then opened with initialize): the first follows the registry no longer.
    live?.stop();
    live = createLiveServer(runtime.deps);
    return live.server;
  };
  const handle = serveStdio(serving, {
    transport,
    onerror: (error) => {
      if (/exceeded maximum size/.test(error.message)) {
        // The transport has stopped reading: end with a code the host sees as a failure, and say why.
        process.stderr.write(
          `market-data-mcp: a stdio message was larger than ${STDIO_DEFAULT_MAX_BUFFER_SIZE / (1024 * 1024)} MB; the connection cannot continue. Exiting with code 2.\n`,
        );
        shutdown(2);
        return;
      }
      runtime.log.error({ err: { message: error.message } }, 'stdio transport error');
    },
  });
  process.stdin.once('end', () => shutdown(0));
  process.once('SIGINT', () => shutdown(0));
  process.once('SIGTERM', () => shutdown(0));
  runtime.log.info({ tools: offeredToolCount(runtime.deps), demo: runtime.simulator !== undefined }, 'market-data-mcp serving on stdio');
}
