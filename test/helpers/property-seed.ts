/**
 * Property tests replay one seed in CI, so that a red run can be reproduced and a green
 * one means the same thing every time. FUZZ_SEED=random explores anew (fast-check prints
 * the seed of a failure), FUZZ_SEED=<n> replays one.
 */
import fc from 'fast-check';

export const PROPERTY_SEED: { seed?: number } =
  process.env['FUZZ_SEED'] === 'random' ? {} : { seed: Number(process.env['FUZZ_SEED'] ?? 20261122) };

/** Applies PROPERTY_SEED to every fc.assert of the calling test file. */
export function replayPropertySeed(): void {
  fc.configureGlobal({ ...fc.readConfigureGlobal(), ...PROPERTY_SEED });
}
