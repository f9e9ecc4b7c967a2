/**
 * Settings for tests and benchmarks: the dialect the simulator speaks and whether V8 keeps
 * its own heap sizing. Read once at start (the CLI and the runtime hand them on); the
 * simulator's dialect names are checked where they are known (src/simulator/dialect.ts).
 */
import * as z from 'zod';
import { DEV_ENV } from './env-vars.js';
import { readSection, setValues, type ConfigProblem } from './section.js';

const schema = z.object({
  simDialect: z.string().trim().optional(),
  v8DefaultHeap: z.enum(['0', '1'], { error: "is neither 1 (V8's own heap sizing) nor 0" }).default('0'),
});

export interface DevelopmentSettings {
  /** The simulator's dialect; undefined: the spec's own. */
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
