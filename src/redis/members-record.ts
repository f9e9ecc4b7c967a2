/**
 * How many processes of the account this node last saw through Redis, kept in its state
 * directory (MARKET_DATA_CACHE_DIR, beside its copy of the API's document). A node that
 * restarts while Redis is away has not heard the count in this life: the record is what it
 * knows of the others, rather than taking the whole account.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface MembersRecord {
  /** The count last written, or undefined (no record, or one that does not read). */
  read(): number | undefined;
  write(processes: number): void;
}

/** The record of the account whose Redis state lives at `stateKey` (itself a hash: no key in the file name). */
export function membersRecord(dir: string, stateKey: string): MembersRecord {
  const file = join(dir, `members-${createHash('sha256').update(stateKey).digest('hex').slice(0, 16)}.json`);
  let writing = Promise.resolve();
  return {
    read() {
      try {
        const { processes } = JSON.parse(readFileSync(file, 'utf8')) as { processes?: unknown };
        return typeof processes === 'number' && Number.isInteger(processes) && processes >= 1 ? processes : undefined;
      } catch {
        return undefined;
      }
    },
    write(processes) {
      // One write at a time, whole or not at all (a reader never sees half a file).
      writing = writing
        .then(async () => {
          const temporary = `${file}.${process.pid}.tmp`;
          await mkdir(dir, { recursive: true });
          await writeFile(temporary, JSON.stringify({ processes, seenAt: new Date().toISOString() }));
          await rename(temporary, file);
        })
        .catch(() => undefined);
    },
  };
}
