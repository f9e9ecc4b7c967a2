/**
 * The names MARKET_DATA_SIM_DIALECT may take, apart from the dialects themselves, so that the
 * server's start (src/config/development.ts) checks a name without loading the simulator.
 */
export const DIALECT_NAMES = ['spec', 'camel', 'vendor', 'kebab'] as const;
export type DialectName = (typeof DIALECT_NAMES)[number];

/** `seed:<n>`: a dialect composed from a seed (dialect-compose.ts). */
export const SEEDED_DIALECT = /^seed:(\d{1,10})$/;

export function isDialectName(name: string): boolean {
  return (DIALECT_NAMES as readonly string[]).includes(name) || SEEDED_DIALECT.test(name);
}
