/**
 * pino on stderr (fd 2): stdout of the stdio server carries only MCP messages. The
 * Authorization header and anything named like a key are redacted wherever they appear.
 */
import { pino, type Logger } from 'pino';
import { redactSecrets } from './secrets.js';

export type { Logger } from 'pino';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const REDACT_PATHS = [
  'authorization',
  'Authorization',
  'headers.authorization',
  'headers.Authorization',
  '*.headers.authorization',
  'apiKey',
  '*.apiKey',
  'api_key',
  'key',
];

export function createLogger(
  level: LogLevel = 'info',
  destination: pino.DestinationStream = pino.destination({ dest: 2, sync: true }),
): Logger {
  // Field names are not enough: the key typed into the wrong variable would be logged as
  // that variable's value. Every line is scrubbed of the configured key before it is written.
  const scrubbed: pino.DestinationStream = { write: (line: string) => destination.write(redactSecrets(line)) };
  return pino({ level, base: { name: 'market-data-mcp' }, redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, scrubbed);
}
