/**
 * Whose key pays, as the operator configured it: the sealed per-user key map
 * (MARKET_DATA_KEY_MAP_FILE, opened with MARKET_DATA_KEY_MAP_SECRET) and what happens to
 * a subject the map does not name (MARKET_DATA_KEY_MAP_UNMAPPED: `refuse`, the default,
 * or `team`, the team's key). The map is read again when its file changes, so
 * `market-data-mcp keys set` takes effect on running nodes without a restart. The settings
 * are read at start by src/config/team.ts.
 */
import { statSync } from 'node:fs';
import type { Logger } from '../log.js';
import { TEAM_ENV } from '../config/env-vars.js';
import { given } from '../config/said.js';
import type { KeyMapSettings, UnmappedPolicy } from '../config/team.js';
import { KeyMapError, readKeyMap, type KeyMap, type UserKey } from './key-map-file.js';

export type { KeyMapSettings, UnmappedPolicy } from '../config/team.js';

/** The reasons a file cannot be read that an operator meets, in their words; another is named by its code. */
const UNREADABLE_BECAUSE: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'a folder, not a file',
  ENOTDIR: 'a part of the path is not a folder',
};

/** How often, at most, a lookup looks at the file's modification time. */
const RECHECK_MS = 2000;

export class KeyDirectory {
  private map: KeyMap;
  private modifiedMs: number;
  private checkedAt: number;

  /** Throws a KeyMapError when the file cannot be read or opened: a node must not start on a map it cannot use. */
  constructor(
    private readonly settings: KeyMapSettings,
    private readonly log: Pick<Logger, 'info' | 'error'>,
    private readonly now: () => number = Date.now,
  ) {
    this.modifiedMs = this.mtime();
    this.map = this.read();
    this.checkedAt = now();
  }

  get unmapped(): UnmappedPolicy {
    return this.settings.unmapped;
  }

  get size(): number {
    return this.map.size;
  }

  lookup(subject: string): UserKey | undefined {
    this.refresh();
    return this.map.get(subject);
  }

  /** A file that changed is read again; one that no longer opens leaves the last good map in use, and says so. */
  private refresh(): void {
    if (this.now() - this.checkedAt < RECHECK_MS) return;
    this.checkedAt = this.now();
    try {
      const modified = this.mtime();
      if (modified === this.modifiedMs) return;
      this.map = this.read();
      this.modifiedMs = modified;
      this.log.info({ subjects: this.map.size }, 'key map changed on disk; read again');
    } catch (error) {
      this.log.error(
        { err: error instanceof Error ? error.message : String(error) },
        'key map changed but cannot be read; the last good one stays in use',
      );
    }
  }

  private mtime(): number {
    try {
      return statSync(this.settings.file).mtimeMs;
    } catch (error) {
      throw this.unreadable(error);
    }
  }

  private read(): KeyMap {
    try {
      return readKeyMap(this.settings.file, this.settings.secret);
    } catch (error) {
      if (error instanceof KeyMapError) throw new KeyMapError(`${TEAM_ENV.keyMapFile}: ${error.message}`);
      throw this.unreadable(error);
    }
  }

  /** Which file could not be read, and why in a few words: the operator fixes a path or a permission. */
  private unreadable(error: unknown): KeyMapError {
    const code = error instanceof Error && 'code' in error ? String(error.code) : undefined;
    const why = code === undefined ? '' : ` (${UNREADABLE_BECAUSE[code] ?? code})`;
    return new KeyMapError(`${given(TEAM_ENV.keyMapFile, this.settings.file)} cannot be read${why}`);
  }
}
