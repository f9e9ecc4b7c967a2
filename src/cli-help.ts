/**
 * What `--help` prints for each command, and the command line read with the mistakes a
 * person makes named: an unknown option or command comes back with the nearest valid one
 * (`--toolset` → `--toolsets`), in one line on stderr, exit 2, never a stack.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CONCERN_TITLES, ENV, ENV_VARS, HTTP_ENV, TEAM_ENV, type EnvConcern } from './config/env-vars.js';
import { nearest } from './mcp/tools/selection.js';

export const COMMANDS = ['simulator', 'demo', 'keys', 'help'] as const;
export type Command = (typeof COMMANDS)[number];

/** A mistake on the command line: said in one line with the fix, exit 2 (as `keys` does). */
export class UsageError extends Error {}

const serverUsage = (
  version: string,
  toolsets: readonly string[],
): string => `market-data-mcp ${version}: MCP server for the Market Data Read API

Usage:
  market-data-mcp [options]                serve MCP over stdio (what a host starts)
  market-data-mcp --http [options]         serve MCP over Streamable HTTP on /mcp
  market-data-mcp simulator [--port 8080]  run the API simulator
  market-data-mcp demo                     a short scripted session on the simulator
  market-data-mcp keys <command>           the per-user key map of --http
  market-data-mcp <command> --help         help for one command

Options:
  --demo                  run on the built-in simulator, no key needed (${ENV.demo})
  --toolsets a,b          offer only these toolsets, or all (${ENV.toolsets}):
                          ${toolsets.join(', ')}
  --tools a,b             offer these tools, besides --toolsets; alone, only them (${ENV.tools})
  --exclude-tools a,b     leave these tools out (${ENV.excludeTools}); api_status stays
  --hide-inaccessible     hide the tools the key's scope cannot use (asks /v1/discover, free)
  --redis-url URL         share the account's limits and cache with its other processes (${ENV.redisUrl})
  --http                  Streamable HTTP; every request needs Authorization: Bearer <token>
                          (${HTTP_ENV.token}, or one generated and printed at start)
  --port 3000             --http's port
  --host 127.0.0.1        --http's address; a non-loopback one also needs --allowed-hosts
  --allowed-hosts a,b     Host names --http answers to (${HTTP_ENV.allowedHosts})
  -h, --help              this text
  -v, --version           the version

${environmentHelp()}`;

/** Every variable the server reads (config/env-vars.ts), by concern, with what it sets. */
function environmentHelp(): string {
  const width = Math.max(...ENV_VARS.map((v) => v.name.length)) + 2;
  const concerns = Object.keys(CONCERN_TITLES) as EnvConcern[];
  const blocks = concerns.map((concern) =>
    [
      `  ${CONCERN_TITLES[concern]}:`,
      ...ENV_VARS.filter((v) => v.concern === concern).map((v) => `    ${v.name.padEnd(width)}${v.sets}`),
    ].join('\n'),
  );
  return `Environment:\n${blocks.join('\n')}`;
}

const SIMULATOR_USAGE = `Usage: market-data-mcp simulator [--port 8080] [--host 127.0.0.1]

Runs the Market Data Read API simulator: every path of the spec with synthetic data,
faithful to its limits and errors. Its URL is printed on stderr. Keys: sim-live-key
(standard), sim-admin-key (administrator), sim-narrow-key (some scopes missing),
sim-lapsed-key (402), sim-revoked-key (401).

Options:
  --port 8080        the port (0 picks a free one)
  --host 127.0.0.1   the address
  -h, --help         this text`;

const DEMO_USAGE = `Usage: market-data-mcp demo

A short scripted MCP session on the built-in simulator, printed for a person to read:
the tools by toolset, SPY dealer gamma levels, the short screener, one structured error
and the budget. Needs no key.`;

const KEYS_USAGE = `Usage: market-data-mcp keys <command>

The sealed per-user key map of --http with OAuth sign-in (README, "Whose key pays").

Commands:
  new-secret                      print a new secret for the map
  set <subject> [--account NAME]  map a signed-in subject to an API key, read from stdin
  remove <subject>                remove a subject
  list                            subjects, accounts and key fingerprints, never a key

Environment: ${TEAM_ENV.keyMapFile}, ${TEAM_ENV.keyMapSecret} (the values the server gets).`;

/** The help of one command; the server's takes the version, the toolsets and the variables of --http and the simulator. */
export function usageOf(command: Command | undefined, server: { version: string; toolsets: readonly string[]; more: string }): string {
  switch (command) {
    case 'simulator':
      return SIMULATOR_USAGE;
    case 'demo':
      return DEMO_USAGE;
    case 'keys':
      return KEYS_USAGE;
    default:
      return `${serverUsage(server.version, server.toolsets)}\n${server.more}`;
  }
}

export function isCommand(word: string | undefined): word is Command {
  return (COMMANDS as readonly string[]).includes(word ?? '');
}

export function wantsHelp(args: readonly string[]): boolean {
  return args.includes('--help') || args.includes('-h');
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** node's parseArgs, its refusals told as a person would want them: the nearest option or command, and where help is. */
export function readArgs<O extends Options>(args: string[], options: O, command: string | undefined) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false });
  } catch (error) {
    throw usageProblem(error, Object.keys(options), command);
  }
}

function usageProblem(error: unknown, options: readonly string[], command: string | undefined): Error {
  if (!(error instanceof Error)) return new UsageError(String(error));
  const code = 'code' in error ? String(error.code) : '';
  const help = `market-data-mcp ${command ? `${command} ` : ''}--help`;
  const unknown = /Unknown option '(-{1,2}[^']+)'/.exec(error.message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && unknown) {
    const near = nearest(unknown.replace(/^-+/, ''), options).map((o) => `--${o}`);
    return new UsageError(`unknown option ${unknown}${near.length > 0 ? ` (did you mean ${near.join(' or ')}?)` : ''}; see ${help}`);
  }
  const positional = /Unexpected argument '([^']+)'/.exec(error.message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' && positional) {
    if (command) return new UsageError(`${command} takes no argument "${positional}"; see ${help}`);
    const near = nearest(positional, COMMANDS);
    return new UsageError(
      `unknown command "${positional}"${near.length > 0 ? ` (did you mean ${near.map((c) => `"${c}"`).join(' or ')}?)` : ''}; commands: simulator, demo, keys; see ${help}`,
    );
  }
  if (code.startsWith('ERR_PARSE_ARGS_')) return new UsageError(`${error.message.split('\n')[0] ?? ''}; see ${help}`);
  return error;
}
