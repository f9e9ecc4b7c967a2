/**
 * What a team's --http server adds, as its operator set it: a member's daily budget in
 * units and the sealed per-user key map (its file, its secret, and what a subject the map
 * does not name gets). Read once at start; src/team/ is handed the frozen result. A value
 * that is wrong here stops the start: a node must not spend the wrong key or no budget.
 */
import * as z from 'zod';
import { TEAM_ENV } from './env-vars.js';
import { readSection, setValues, wholeNumber, type ConfigProblem } from './section.js';

export type UnmappedPolicy = 'refuse' | 'team';

export interface KeyMapSettings {
  readonly file: string;
  readonly secret: string;
  readonly unmapped: UnmappedPolicy;
}

export interface TeamSettings {
  /** Units a signed-in member may spend a day (UTC); undefined: no budget. */
  readonly dailyUnits: number | undefined;
  /** Undefined when no map is configured: the team's key pays for everyone. */
  readonly keyMap: KeyMapSettings | undefined;
}

export interface TeamSection {
  readonly settings: TeamSettings;
  /** Each stops the start, with the variable to fix. */
  readonly problems: readonly ConfigProblem[];
}

const schema = z.object({
  dailyUnits: wholeNumber('units', 1, Number.MAX_SAFE_INTEGER, 'is less than 1 unit').optional(),
  keyMapFile: z.string().trim().optional(),
  /** Used as given, spaces and all: it is what `keys new-secret` printed. */
  keyMapSecret: z.string().optional(),
  keyMapUnmapped: z
    .string()
    .trim()
    .pipe(z.enum(['refuse', 'team'], { error: 'is neither refuse nor team (what a subject the key map does not name gets)' }))
    .default('refuse'),
});

export function teamSettings(env: NodeJS.ProcessEnv): TeamSection {
  const raw = setValues(env, TEAM_ENV);
  const read = readSection(schema, raw, {
    names: TEAM_ENV,
    shown: { keyMapSecret: 'secret' },
    essential: new Set(['dailyUnits', 'keyMapFile', 'keyMapSecret', 'keyMapUnmapped']),
  });
  const problems = [...read.problems];
  const { dailyUnits, keyMapFile: file, keyMapSecret: secret, keyMapUnmapped: unmapped } = read.settings;
  if (file === undefined && (secret !== undefined || raw.keyMapUnmapped !== undefined))
    problems.push({
      variable: TEAM_ENV.keyMapFile,
      message: `${TEAM_ENV.keyMapFile} is required with ${TEAM_ENV.keyMapSecret} or ${TEAM_ENV.keyMapUnmapped}.`,
    });
  if (file !== undefined && secret === undefined)
    problems.push({ variable: TEAM_ENV.keyMapSecret, message: `${TEAM_ENV.keyMapSecret} is required to open ${TEAM_ENV.keyMapFile}.` });
  const keyMap = file !== undefined && secret !== undefined ? Object.freeze({ file, secret, unmapped }) : undefined;
  return { settings: Object.freeze({ dailyUnits, keyMap }), problems };
}

/** Where `market-data-mcp keys` finds the map: the same two variables the server gets, each possibly unset. */
export interface KeyMapPlace {
  readonly file: string | undefined;
  readonly secret: string | undefined;
}

export function keyMapPlace(env: NodeJS.ProcessEnv): KeyMapPlace {
  const raw = setValues(env, TEAM_ENV);
  return Object.freeze({ file: raw.keyMapFile?.trim(), secret: raw.keyMapSecret });
}
