#!/usr/bin/env node
// The MCP conformance CLI (0.1.16) cannot send headers, and --http requires a bearer token.
// This loopback proxy adds "Authorization: Bearer $MARKET_DATA_HTTP_TOKEN" to every request
// and forwards it unchanged otherwise (Host and Origin included), so the suite tests the
// real server with authentication on, DNS-rebinding checks and all.
//   node .ci/auth-proxy.mjs http://127.0.0.1:PORT/mcp   → prints "proxy listening on http://127.0.0.1:N/mcp"
import { createServer, request } from 'node:http';

const target = new URL(process.argv[2] ?? '');
const token = process.env.MARKET_DATA_HTTP_TOKEN ?? '';
const proxy = createServer((req, res) => {
  const upstream = request(
    {
      host: target.hostname,
      port: target.port,
      path: req.url,
      method: req.method,
      headers: { ...req.headers, authorization: `Bearer ${token}` },
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', () => res.writeHead(502).end());
  req.pipe(upstream);
});
proxy.listen(0, '127.0.0.1', () => {
  process.stderr.write(`proxy listening on http://127.0.0.1:${proxy.address().port}/mcp\n`);
});
process.once('SIGTERM', () => proxy.close(() => process.exit(0)));
