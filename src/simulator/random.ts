/**
 * Deterministic randomness keyed by what a value is about: the same parts give the same
 * draw on every run and platform, whatever was asked before. Callers key draws by
 * (seed, dataset, symbol, date or instant), never by a row's position in a page.
 */

/** FNV-1a over the joined parts. */
function hash(parts: readonly (string | number)[]): number {
  let value = 0x811c9dc5;
  for (const char of parts.join('|')) {
    value ^= char.charCodeAt(0);
    value = Math.imul(value, 0x01000193);
  }
  return value >>> 0;
}

/** mulberry32 seeded by the parts: a stream of uniforms in [0, 1). */
export function seededRandom(...parts: (string | number)[]): () => number {
  let state = hash(parts);
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal draw from a uniform stream (Box-Muller). */
export function gaussian(random: () => number): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

export function pick<T>(random: () => number, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length) % items.length];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
