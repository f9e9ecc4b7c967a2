/**
 * `market-data-mcp keys …`: how an operator creates and updates the sealed per-user key
 * map. The API key is read from stdin, never from the command line (where `ps` and shell
 * history would keep it), and no command prints a key.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { digestOf } from '../auth/caller.js';
import { TEAM_ENV } from '../config/env-vars.js';
import type { KeyMapPlace } from '../config/team.js';
import { KeyMapError, readKeyMap, writeKeyMap, type KeyMap, type UserKey } from './key-map-file.js';

// Not the MCP server: a command whose output (a secret, a listing) is meant for a pipe or `$( )`.
// eslint-disable-next-line no-restricted-properties
const output = process.stdout;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8').trim();
}

/** Asked only by the commands that open the map: `new-secret` needs neither. */
function location(place: KeyMapPlace): { file: string; secret: string } {
  const { file, secret } = place;
  if (!file || !secret) throw new KeyMapError(`set ${TEAM_ENV.keyMapFile} and ${TEAM_ENV.keyMapSecret} (the same values the server gets)`);
  return { file, secret };
}

function current(file: string, secret: string): Map<string, UserKey> {
  return new Map(existsSync(file) ? readKeyMap(file, secret) : []);
}

function describe(map: KeyMap): string {
  if (map.size === 0) return 'no subjects\n';
  return [...map]
    .map(([subject, entry]) => `${subject}\taccount=${entry.account ?? '(by key)'}\tkey=sha256:${digestOf(entry.key)}`)
    .join('\n')
    .concat('\n');
}

/**
 * The `keys` command as the shell sees it: an operator's mistake is one line on stderr and
 * exit 2, a file that cannot be read or written exit 1; never a stack or a start-up failure.
 */
export async function keysCommandLine(args: string[], place: KeyMapPlace): Promise<void> {
  try {
    await runKeysCommand(args, place);
  } catch (error) {
    const usage = error instanceof KeyMapError || isParseArgsError(error);
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`market-data-mcp keys: ${message.split('\n')[0] ?? ''}\n`);
    process.exitCode = usage ? 2 : 1;
  }
}

function isParseArgsError(error: unknown): boolean {
  return error instanceof Error && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS_');
}

async function runKeysCommand(args: string[], place: KeyMapPlace): Promise<void> {
  const { positionals, values } = parseArgs({ args, allowPositionals: true, options: { account: { type: 'string' } }, strict: true });
  const [command, subject, ...extra] = positionals;
  if (command === 'new-secret') {
    output.write(`${randomBytes(32).toString('base64url')}\n`);
    return;
  }
  if (!command || !['set', 'remove', 'list'].includes(command))
    throw new KeyMapError(
      `${command ? `unknown command "${command}"` : 'a command is needed'}; commands: new-secret, set <subject> [--account NAME], remove <subject>, list`,
    );
  if (extra.length > 0 || (command === 'list' && subject))
    throw new KeyMapError(
      `keys ${command} takes ${command === 'list' ? 'no' : 'one'} subject; unexpected: ${[...(command === 'list' ? [subject] : []), ...extra].join(' ')}`,
    );
  const { file, secret } = location(place);
  const map = current(file, secret);
  if (command === 'list') {
    output.write(describe(map));
    return;
  }
  if (!subject) throw new KeyMapError(`keys ${command} needs the subject (the token's "sub")`);
  if (command === 'remove') {
    if (!map.delete(subject)) throw new KeyMapError(`${subject} is not in the key map`);
  } else {
    const key = await readStdin();
    if (key.length < 8 || /\s/.test(key))
      throw new KeyMapError('pipe the API key on stdin (one line, no spaces): echo "$KEY" | market-data-mcp keys set …');
    map.set(subject, { key, account: values.account?.trim() || undefined });
  }
  writeKeyMap(file, map, secret);
  process.stderr.write(`${command === 'set' ? 'set' : 'removed'} ${subject}; ${map.size} subject${map.size === 1 ? '' : 's'} in ${file}\n`);
}
