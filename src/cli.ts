#!/usr/bin/env node
/**
 * Entry point, kept thin: parse the command line, build the runtime, wire a transport.
 *   market-data-mcp [--demo] [--toolsets a,b] [--tools a,b] [--exclude-tools a,b] [--hide-inaccessible]   stdio (default)
 *   market-data-mcp --http [--port 3000] [--host 127.0.0.1] [--allowed-hosts a,b] [--demo]  Streamable HTTP
 *   market-data-mcp simulator [--port 8080] [--host 127.0.0.1]        the API simulator
 *   market-data-mcp keys …                                             the per-user key map (src/team/keys-command.ts)
 * Every command answers --help (src/cli-help.ts).
 */
import { isCommand, readArgs, usageOf, UsageError, wantsHelp, type Command } from './cli-help.js';
import { favourSmallHeap } from './heap-policy.js';
import { createLogger } from './log.js';
import { tracingWanted } from './observe/tracing-settings.js';
import { developmentSettings } from './config/development.js';
import { coreSaid, coreSettings } from './config/core-settings.js';
import { httpSettings, type HttpSettings } from './config/http.js';
import { oauthSettings, type OAuthSettings } from './config/oauth.js';
import type { ConfigProblem } from './config/section.js';
import { keyMapPlace, teamSettings, type TeamSettings } from './config/team.js';
import type { NetworkTransport, ToolTracing, TracingFailed } from './observe/tracing.js';
import type { TeamOps } from './team/team.js';
import { coreFlags, createRuntime, packageVersion, TOOLSETS, type Runtime } from './runtime.js';
import { httpAccess, type HttpAccess } from './transports/http-auth.js';
import { serveOverStdio } from './transports/stdio.js';

// Only what the first answer over stdio needs is imported up front; the HTTP transport
// and the simulator load when their mode asks for them (start-up time, BENCHMARKS.md).

/** The variables of --http and the simulator, from the modules that read them: loaded only for --help. */
/** What --help adds that only the simulator knows: the dialects it speaks. */
async function moreEnvironment(): Promise<string> {
  const { DIALECT_ENV, DIALECT_NAMES } = await import('./simulator/dialect.js');
  return `${DIALECT_ENV}: ${DIALECT_NAMES.join(', ')}, or seed:<n> for a dialect composed from a seed.\nLogs go to stderr.`;
}

function port(value: string, flag: string): number {
  const parsed = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65535)
    throw new Error(`${flag} must be a whole number from 0 to 65535, got ${value}`);
  return parsed;
}

/** Help goes where a shell reads it (`--help | less`): no MCP session is served then. */
async function printHelp(command: Command | undefined): Promise<void> {
  const text = usageOf(command, { version: packageVersion(), toolsets: TOOLSETS, more: command ? '' : await moreEnvironment() });
  // eslint-disable-next-line no-restricted-properties -- not the protocol channel: nothing is served
  process.stdout.write(`${text.trimEnd()}\n`);
}

async function runSimulator(args: string[]): Promise<void> {
  const { values } = readArgs(
    args,
    { port: { type: 'string', default: '8080' }, host: { type: 'string', default: '127.0.0.1' } },
    'simulator',
  );
  const [{ startSimulator }, { describeDialect }] = await Promise.all([import('./simulator/server.js'), import('./simulator/dialect.js')]);
  const sim = await startSimulator({ port: port(values.port, '--port'), host: values.host });
  process.stderr.write(
    `Market Data Read API simulator listening on ${sim.url}\nTry: curl -H 'Authorization: Bearer sim-live-key' ${sim.url}/v1/derived/dealer-gex/SPY/history\n`,
  );
  // A composed dialect says every trait, so that what a client met can be served again.
  if (sim.api.dialect.name !== 'spec') process.stderr.write(`Dialect: ${describeDialect(sim.api.dialect)}\n`);
  const stop = (): void => void sim.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

async function runServer(args: string[]): Promise<void> {
  // Its warnings are the runtime's to say, with the other settings'.
  favourSmallHeap(developmentSettings(process.env).settings);
  const { values } = readArgs(
    args,
    {
      demo: { type: 'boolean' },
      http: { type: 'boolean' },
      port: { type: 'string', default: '3000' },
      host: { type: 'string', default: '127.0.0.1' },
      'allowed-hosts': { type: 'string' },
      toolsets: { type: 'string' },
      tools: { type: 'string' },
      'exclude-tools': { type: 'string' },
      'hide-inaccessible': { type: 'boolean' },
      'redis-url': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
    undefined,
  );
  if (values.help) return printHelp(undefined);
  if (values.version) {
    // No MCP session here: the answer goes where a shell reads it (`$(market-data-mcp --version)`).
    // eslint-disable-next-line no-restricted-properties -- not the protocol channel: nothing is served
    process.stdout.write(`${packageVersion()}\n`);
    return;
  }
  const chosen = {
    demo: values.demo,
    toolsets: values.toolsets,
    tools: values.tools,
    excludeTools: values['exclude-tools'],
    redisUrl: values['redis-url'],
  };
  // The core settings' warnings are the runtime's to say; a start --http stops says them first.
  const coreLines = (): string[] => coreSaid(coreSettings(process.env, coreFlags(chosen)));
  const http = values.http ? httpStart(values.port, values.host, values['allowed-hosts'], coreLines) : undefined;
  // Metrics, audit and sign-in of the team server (src/observe, src/team, src/auth) load only with --http.
  const team = http ? (await import('./team/team.js')).createTeamOps(http.team) : undefined;
  const transport = http ? 'tcp' : 'pipe';
  const tracing = await toolTracing(transport);
  const traced = tracing && !('failed' in tracing) ? tracing : undefined;
  const runtime = await createRuntime(process.env, {
    wrapGate: team ? (gate, redis) => team.wrapGate(gate, redis) : undefined,
    middleware: traced?.middleware,
    afterClose: traced ? () => traced.shutdown() : undefined,
    ...chosen,
    hideInaccessible: values['hide-inaccessible'],
  });
  if (tracing) (await import('./observe/tracing.js')).reportTracing(runtime.log, tracing, transport);
  if (http && team) await serveTeam(runtime, team, http);
  else serveOverStdio(runtime);
}

/** Where and to whom --http serves. */
interface HttpStart {
  readonly port: number;
  readonly host: string;
  readonly access: HttpAccess;
  readonly limits: HttpSettings;
  readonly oauth: OAuthSettings | undefined;
  readonly team: TeamSettings;
}

/**
 * Checked before anything starts: a server that cannot be reached safely does not start,
 * and a bad --port is refused before --demo's simulator holds the process open. A setting
 * that stops the start is said after every warning of the settings read so far (`coreLines`:
 * the core settings', which the runtime says itself on a start that goes on), so that one
 * start shows everything to fix.
 */
function httpStart(portFlag: string, host: string, allowedHosts: string | undefined, coreLines: () => readonly string[]): HttpStart {
  const httpPort = port(portFlag, '--port');
  const http = httpSettings(process.env);
  const httpLines = http.warnings.map((warning) => warning.message);
  const say = (lines: readonly string[]): void => {
    for (const line of lines) process.stderr.write(`WARNING: ${line}\n`);
  };
  const stop: (problem: string) => never = (problem) => {
    say([...coreLines(), ...httpLines]);
    throw new Error(problem);
  };
  if (http.problems.length > 0) stop(inOneLine(http.problems));
  const oauth = oauthSettings(process.env);
  if (!oauth.ok) stop(oauth.problem);
  const access = httpAccess(http.settings, { bindHost: host, allowedHostsFlag: allowedHosts, signIn: oauth.settings !== undefined });
  if (!access.ok) stop(access.problem);
  // A key map or a budget that cannot be used stops the start: a node must not spend wrongly.
  const team = teamSettings(process.env);
  if (team.problems.length > 0) stop(inOneLine(team.problems));
  say(httpLines);
  return { port: httpPort, host, access: access.access, limits: http.settings, oauth: oauth.settings, team: team.settings };
}

/** What stops the start, in one line. */
function inOneLine(problems: readonly ConfigProblem[]): string {
  return problems.map((problem) => problem.message).join('; ');
}

/** OpenTelemetry loads only when the OTEL_* variables ask for traces (src/observe/tracing-settings.ts). */
async function toolTracing(transport: NetworkTransport): Promise<ToolTracing | TracingFailed | undefined> {
  if (!tracingWanted(process.env)) return undefined;
  return (await import('./observe/tracing.js')).startToolTracing(packageVersion(), transport);
}

async function serveTeam(runtime: Runtime, team: TeamOps, http: HttpStart): Promise<void> {
  const { serveHttp } = await import('./transports/http.js');
  const served = team.attach(runtime, http.access, http.oauth);
  await serveHttp(runtime, {
    port: http.port,
    host: http.host,
    access: http.access,
    limits: http.limits,
    door: served.door,
    deps: (caller) => served.depsFor(caller),
    closing: () => served.close(),
  });
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (!isCommand(command)) return runServer(argv);
  // `help keys` and `keys --help` (any command, any place among its words) print that command's help.
  if (command === 'help') return printHelp(isCommand(rest[0]) && rest[0] !== 'help' ? rest[0] : undefined);
  if (wantsHelp(rest)) return printHelp(command);
  if (command === 'simulator') return runSimulator(rest);
  if (command === 'demo') {
    readArgs(rest, {}, 'demo');
    return (await import('./demo.js')).runDemo();
  }
  return (await import('./team/keys-command.js')).keysCommandLine(rest, keyMapPlace(process.env));
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    process.stderr.write(`market-data-mcp: ${error.message}\n`);
    process.exitCode = 2;
    return;
  }
  createLogger('info').fatal(
    { err: error instanceof Error ? { message: error.message } : String(error) },
    'market-data-mcp failed to start',
  );
  process.stderr.write(`market-data-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
