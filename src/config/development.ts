/**
 * Settings for tests and benchmarks: the dialect the simulator speaks and whether V8 keeps
 * its own heap sizing. Read once at start (the CLI and the runtime hand them on). An unknown
 * dialect is warned about and the spec's own served: demo mode never fails to start over a setting.
 */
import * as z from 'zod';
import { DIALECT_NAMES, isDialectName } from '../simulator/dialect-names.js';
import { DEV_ENV } from './env-vars.js';
import { readSection, setValues, type ConfigProblem } from './section.js';

const schema = z.object({
  simDialect: z
    .string()
    .trim()
    .refine(isDialectName, { error: `is not a simulator dialect (${DIALECT_NAMES.join(', ')}, or seed:<n>)` })
    .default('spec'),
  v8DefaultHeap: z.enum(['0', '1'], { error: "is neither 1 (V8's own heap sizing) nor 0" }).default('0'),
});

export interface DevelopmentSettings {
  /** The simulator's dialect: `spec` (the spec's own) unless a known one is named. */
  readonly simDialect: string | undefined;
  /** V8's own heap sizing instead of the server's (src/heap-policy.ts), for the memory benchmarks. */
  readonly v8DefaultHeap: boolean;
}

export interface DevelopmentSection {
  readonly settings: DevelopmentSettings;
  readonly warnings: readonly ConfigProblem[];
}

export function developmentSettings(env: NodeJS.ProcessEnv): DevelopmentSection {
  const { settings, warnings } = readSection(schema, setValues(env, DEV_ENV), { names: DEV_ENV });
  return { settings: Object.freeze({ simDialect: settings.simDialect, v8DefaultHeap: settings.v8DefaultHeap === '1' }), warnings };
}
