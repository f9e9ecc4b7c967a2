#!/usr/bin/env node
// Starts an MCP server command over stdio, asks tools/list, prints the count, exits
// non-zero unless the dataset tools are there. Usage: smoke-tools-list.mjs <cmd> [args...]
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [command, ...args] = process.argv.slice(2);
const client = new Client({ name: 'smoke', version: '1.0.0' });
await client.connect(
  new StdioClientTransport({ command, args, env: { ...process.env, MARKET_DATA_LOG_LEVEL: 'warn' }, stderr: 'inherit' }),
);
const { tools } = await client.listTools();
const call = await client.callTool({ name: 'derived_dealer_gex_history', arguments: { ticker: 'SPY', limit: 1 } });
await client.close();
process.stderr.write(`tools/list: ${tools.length} tools; derived_dealer_gex_history ${call.isError ? 'failed' : 'answered'}\n`);
process.exit(tools.length >= 23 && !call.isError ? 0 : 1);
