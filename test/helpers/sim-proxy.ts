/**
 * A proxy in front of a simulator that a test steers per request: pass it on after a
 * delay, or answer in the simulator's stead (a 429, say). It records what reached the
 * upstream, so a test can compare what an answer says with what was sent.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Steer {
  delayMs?: number;
  /** Answered instead of the simulator. */
  answer?: { status: number; headers?: Record<string, string>; body: unknown };
  /** The simulator's JSON answer, passed on as this returns it (an upstream naming its fields otherwise). */
  rewrite?: (body: unknown) => unknown;
}

export interface SimProxy {
  url: string;
  /** Paths (with query) that reached the proxy, and whether the simulator was asked. */
  seen: { path: string; forwarded: boolean }[];
  close(): Promise<void>;
}

export async function startSimProxy(target: string, steer: (path: string) => Steer): Promise<SimProxy> {
  const seen: SimProxy['seen'] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const path = req.url ?? '/';
      const how = steer(path);
      const entry = { path, forwarded: how.answer === undefined };
      seen.push(entry);
      if (how.delayMs) await new Promise((resolve) => setTimeout(resolve, how.delayMs));
      if (res.destroyed) return;
      if (how.answer) {
        res.writeHead(how.answer.status, { 'content-type': 'application/json', ...how.answer.headers });
        res.end(JSON.stringify(how.answer.body));
        return;
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && name !== 'host') headers[name] = value;
      const upstream = await fetch(`${target}${path}`, { headers });
      const raw = Buffer.from(await upstream.arrayBuffer());
      const body = how.rewrite ? Buffer.from(JSON.stringify(how.rewrite(JSON.parse(raw.toString('utf8'))))) : raw;
      const out: Record<string, string> = {};
      upstream.headers.forEach((value, name) => {
        if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name)) out[name] = value;
      });
      res.writeHead(upstream.status, out);
      res.end(body);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
