import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
const env = { PATH: process.env.PATH, HOME: '/tmp/trial', MARKET_DATA_LOG_LEVEL: 'silent', ...JSON.parse(process.argv[2]) };
const t = new StdioClientTransport({ command: 'node', args: ['/work/wt-trial/dist/cli.js', ...JSON.parse(process.argv[3] ?? '[]')], env, stderr: 'pipe' });
let err=''; t.stderr?.on('data', d => err += d);
const c = new Client({ name: 'x', version: '1' });
await c.connect(t);
const tl = (await c.listTools()).tools; console.log('tools', tl.length, tl.map(t=>t.name).join(','));
for (const [n,a] of JSON.parse(process.argv[4] ?? '[]')) { const r = await c.callTool({ name: n, arguments: a }); console.log('##', n, JSON.stringify(a), (r.isError?'ERR ':'OK ') + r.content.map(x=>x.text).join(' | ').slice(0, 900)); }
await c.close(); if (process.env.E) console.log('stderr:', err.slice(0, 1500));
