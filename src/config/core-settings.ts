/**
 * The core sections every start reads (the account and this server: config.ts; tests and
 * benchmarks: development.ts), and what they have to say: settings not used as given, and a
 * key or base URL that cannot be used. The runtime logs them and shows them in api_status; a
 * start that stops before the runtime is made (a fatal --http setting) prints them first,
 * so that one start shows everything to fix.
 */
import { loadConfig, type Config, type ConfigProblem } from './config.js';
import { developmentSettings, type DevelopmentSettings } from './development.js';

export interface CoreSettings {
  readonly config: Config;
  readonly development: DevelopmentSettings;
  /** Values not used as given, each replaced by its default (or nearest bound). */
  readonly warnings: readonly ConfigProblem[];
  /** A key or base URL that cannot be used: data calls answer CONFIG_INVALID, except in demo mode, which needs neither. */
  readonly problems: readonly ConfigProblem[];
}

/** Flags win over the environment (loadConfig). */
export function coreSettings(env: NodeJS.ProcessEnv, flags: Partial<Record<keyof Config, unknown>> = {}): CoreSettings {
  const loaded = loadConfig(env, flags);
  const development = developmentSettings(env);
  return {
    config: loaded.config,
    development: development.settings,
    warnings: [...loaded.warnings, ...development.warnings],
    problems: loaded.ok ? [] : loaded.problems,
  };
}

/** How a problem is said where it does not stop data calls (demo mode). */
export function ignoredInDemo(problem: ConfigProblem): string {
  return `${problem.message} (ignored in demo mode)`;
}

/** Every line the core sections say at start, warnings first, as the runtime would say them. */
export function coreSaid(core: CoreSettings): string[] {
  return [...core.warnings.map((w) => w.message), ...core.problems.map((p) => (core.config.demo ? ignoredInDemo(p) : p.message))];
}
