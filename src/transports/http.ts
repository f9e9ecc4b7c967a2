/**
 * Streamable HTTP, bound to 127.0.0.1 by default, with Host and Origin checks in front
 * of the handler (DNS-rebinding protection). One server instance per request.
 */
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from '@modelcontextprotocol/node';
import { createServer } from '../mcp/server.js';
import type { Runtime } from '../runtime.js';

export async function serveHttp(
  runtime: Runtime,
  options: { port: number; host: string },
): Promise<{ url: string; close(): Promise<void> }> {
  const handler = createMcpHandler(() => createServer(runtime.deps));
  runtime.registry.onChange(() => handler.notify.toolsChanged());
  const nodeHandler = toNodeHandler(handler);
  const validateHost = localhostHostValidation();
  const validateOrigin = localhostOriginValidation();
  const http = createHttpServer((req, res) => {
    if (!validateHost(req, res) || !validateOrigin(req, res)) return;
    if (!req.url?.startsWith('/mcp')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('MCP endpoint: /mcp\n');
      return;
    }
    // node:http always sets method on a server request; its type leaves it optional.
    void nodeHandler(req as Parameters<typeof nodeHandler>[0], res);
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, () => resolve());
  });
  const address = http.address() as AddressInfo;
  const url = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${address.port}/mcp`;
  process.stderr.write(`market-data-mcp listening on ${url}\n`);
  const close = async (): Promise<void> => {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
    await handler.close();
    await runtime.close();
  };
  const shutdown = (): void => void close().finally(() => process.exit(0));
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  return { url, close };
}
