#!/usr/bin/env node
/**
 * Entry point. Kept thin: parse the command line, build the pieces, wire a transport.
 *   market-data-mcp simulator [--port N] [--host 127.0.0.1]
 */
import { parseArgs } from 'node:util';
import { createLogger } from './log.js';
import { startSimulator } from './simulator/server.js';

const log = createLogger((process.env['MARKET_DATA_LOG_LEVEL'] as 'info' | undefined) ?? 'info');

async function runSimulator(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { port: { type: 'string', default: '8080' }, host: { type: 'string', default: '127.0.0.1' } }, strict: true });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0 to 65535, got ${values.port}`);
  const sim = await startSimulator({ port, host: values.host });
  process.stderr.write(`Market Data Read API simulator listening on ${sim.url}\nTry: curl -H 'Authorization: Bearer sim-live-key' ${sim.url}/v1/derived/dealer-gex/SPY/history\n`);
  const stop = (): void => void sim.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === 'simulator') return runSimulator(rest);
  throw new Error(`Unknown command ${command ?? ''}`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  log.fatal({ err: error }, 'market-data-mcp failed to start');
  process.exitCode = 1;
});
