/** Helpers for the simulator's invariants: call a generator directly, and check a matrix's spectrum. */
import { latestSession } from '../../src/catalog/market-calendar.js';
import { catalogGenerator, type CatalogOperationId, type Generated } from '../../src/simulator/generators/index.js';
import { referenceSymbol } from '../../src/simulator/reference.js';

export type Rows = Record<string, unknown>[];

/** The generator's answer for (seed, clock, ticker, query), as the simulator would send it. */
export function generate(
  operationId: CatalogOperationId,
  now: number,
  query: Record<string, string | number> = {},
  ticker?: string,
  seed = 7,
): Generated {
  return catalogGenerator(operationId)({
    seed,
    now,
    session: latestSession(now),
    symbol: ticker === undefined ? undefined : referenceSymbol(ticker),
    query,
  });
}

export function rows(generated: Generated): Rows {
  const data = generated.data;
  return Array.isArray(data) ? data : [data];
}

/** Eigenvalues of a symmetric matrix (cyclic Jacobi rotations). */
export function eigenvalues(matrix: number[][]): number[] {
  const n = matrix.length;
  const a = matrix.map((row) => [...row]);
  const at = (i: number, j: number): number => a[i]?.[j] ?? 0;
  const set = (i: number, j: number, v: number): void => {
    const row = a[i];
    if (row) row[j] = v;
  };
  for (let sweep = 0; sweep < 100; sweep += 1) {
    let off = 0;
    for (let i = 0; i < n; i += 1) for (let j = i + 1; j < n; j += 1) off += at(i, j) ** 2;
    if (off < 1e-20) break;
    for (let p = 0; p < n; p += 1)
      for (let q = p + 1; q < n; q += 1) {
        if (Math.abs(at(p, q)) < 1e-15) continue;
        const theta = (at(q, q) - at(p, p)) / (2 * at(p, q));
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k += 1) {
          const kp = at(k, p);
          const kq = at(k, q);
          set(k, p, c * kp - s * kq);
          set(k, q, s * kp + c * kq);
        }
        for (let k = 0; k < n; k += 1) {
          const pk = at(p, k);
          const qk = at(q, k);
          set(p, k, c * pk - s * qk);
          set(q, k, s * pk + c * qk);
        }
      }
  }
  return a.map((_, i) => at(i, i));
}
