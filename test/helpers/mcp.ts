/** Spawns the built binary over stdio and connects an MCP client to it (v2 or v1 SDK). */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const CLI = fileURLToPath(new URL('../../../dist/cli.js', import.meta.url));

export interface SpawnOptions {
  /** Base URL of a simulator started by the test; omit with `--demo`. */
  baseUrl?: string;
  key?: string;
  args?: string[];
  env?: Record<string, string>;
}

/**
 * A cache folder of its own for one server. A blank MARKET_DATA_CACHE_DIR means unset (the
 * user's cache), where another test's copy of the upstream document, from a simulator once
 * on the same port, would be read as this upstream's.
 */
export function freshCacheDir(): string {
  return mkdtempSync(join(tmpdir(), 'mdmcp-'));
}

export function serverEnv(options: SpawnOptions): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '',
    MARKET_DATA_CACHE_DIR: freshCacheDir(),
    MARKET_DATA_LOG_LEVEL: 'info',
    // The dialect the suites run against (CI runs them against each): --demo's simulator speaks it too.
    ...(process.env['MARKET_DATA_SIM_DIALECT'] ? { MARKET_DATA_SIM_DIALECT: process.env['MARKET_DATA_SIM_DIALECT'] } : {}),
    ...options.env,
  };
  if (options.baseUrl) env['MARKET_DATA_BASE_URL'] = options.baseUrl;
  if (options.key) env['MARKET_DATA_API_KEY'] = options.key;
  return env;
}

export interface Connected<C> {
  client: C;
  stderr: () => string;
  close: () => Promise<void>;
}

export async function connectV2(options: SpawnOptions): Promise<Connected<Client>> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, ...(options.args ?? [])],
    env: serverEnv(options),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'e2e-v2', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

export async function connectV1(options: SpawnOptions): Promise<Connected<LegacyClient>> {
  const transport = new LegacyStdioClientTransport({
    command: process.execPath,
    args: [CLI, ...(options.args ?? [])],
    env: serverEnv(options),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new LegacyClient({ name: 'e2e-v1', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

export interface ToolError {
  code: string;
  status: number | null;
  message: string;
  hint: string | null;
  recoverable: boolean;
  retry_after_seconds: number | null;
  action: string;
  docs_url: string | null;
  request_id: string | null;
  /** Whether the call cost a unit, where the server knows and says (a deadline after a 200). */
  charged?: boolean;
}

/**
 * The error of an error result, read from its text as a model would see it (the last line
 * is the error as JSON); where the result also carries structuredContent, both must agree.
 */
export function errorOf(result: { structuredContent?: unknown; isError?: unknown; content?: unknown }): ToolError {
  if (result.isError !== true) throw new Error(`expected an error result, got ${JSON.stringify(result).slice(0, 300)}`);
  const fromText = errorInText(textOf(result));
  if (result.structuredContent !== undefined) {
    const structured = (result.structuredContent as { error: ToolError }).error;
    if (JSON.stringify(structured) !== JSON.stringify(fromText)) throw new Error('structuredContent and text disagree');
  }
  return fromText;
}

/** The error JSON on the last line of an error's text, wherever that text was found. */
export function errorInText(text: string): ToolError {
  const line = text.trim().split('\n').at(-1) ?? '';
  return (JSON.parse(line) as { error: ToolError }).error;
}

export function textOf(result: { content?: unknown }): string {
  const content = (result.content ?? []) as { type: string; text?: string }[];
  return content.map((c) => c.text ?? '').join('\n');
}
