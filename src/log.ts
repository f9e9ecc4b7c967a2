/**
 * pino on stderr (fd 2): stdout of the stdio server carries only MCP messages. The
 * Authorization header and anything named like a key are redacted wherever they appear.
 */
import { pino, type Logger } from 'pino';

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
  return pino({ level, base: { name: 'market-data-mcp' }, redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, destination);
}
