// The README's layout section, written from each source folder's README.md (its first
// paragraph says what the room holds; its last line where it stands on one call's path, or
// why a reader of one call can skip it) and each top-level file's opening comment. `npm run
// sync-docs` writes it; test/docs.test.ts fails when the README and the folders disagree.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const LAYOUT_BEGIN = '<!-- layout: written by npm run sync-docs from each folder of src/ (its README.md) -->';
export const LAYOUT_END = '<!-- layout end -->';

/** Folders of src/ that hold TypeScript, depth first, as paths relative to the root. */
export function sourceFolders(root) {
  const found = [];
  const walk = (dir) => {
    const entries = readdirSync(join(root, dir));
    if (entries.some((e) => e.endsWith('.ts'))) found.push(dir);
    for (const e of entries) if (statSync(join(root, dir, e)).isDirectory()) walk(`${dir}/${e}`);
  };
  for (const e of readdirSync(join(root, 'src'))) if (statSync(join(root, 'src', e)).isDirectory()) walk(`src/${e}`);
  return found.sort();
}

/** A folder's room: what it holds and where it stands on one call's path; throws naming what is missing. */
export function readRoom(root, folder) {
  const file = join(root, folder, 'README.md');
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new Error(`${folder}/ has no README.md saying what it holds (scripts/layout.mjs)`);
  }
  const paragraphs = text
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .filter((p) => p.length > 0 && !p.startsWith('#'));
  const holds = paragraphs[0];
  const place = paragraphs.at(-1);
  const stage = /^On one call's path, stage (\d+)\.$/.exec(place ?? '');
  const skip = /^Skip when following one call: (.+)$/.exec(place ?? '');
  const consulted = /^Consulted on one call's path/.test(place ?? '');
  if (!holds || paragraphs.length < 2 || !(stage || skip || consulted))
    throw new Error(
      `${folder}/README.md needs a paragraph of what it holds, then "On one call's path, stage N.", "Consulted on one call's path …" or "Skip when following one call: why."`,
    );
  return { folder, holds, stage: stage ? Number(stage[1]) : undefined, skip: skip?.[1], consulted: consulted ? place : undefined };
}

/** The first sentence of a top-level file's opening comment. */
function fileSummary(root, file) {
  const text = readFileSync(join(root, 'src', file), 'utf8');
  const comment = /^(?:#![^\n]*\n)?\/\*\*([\s\S]*?)\*\//.exec(text)?.[1] ?? '';
  const prose = comment
    .split('\n')
    .map((l) => l.replace(/^\s*\*\s?/, ''))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  const end = prose.search(/\.(\s|$)/);
  return end > 0 ? prose.slice(0, end) : prose;
}

export function layoutSection(root = '.') {
  const rooms = sourceFolders(root).map((f) => readRoom(root, f));
  const onPath = rooms.filter((r) => r.stage !== undefined).sort((a, b) => a.stage - b.stage);
  const consulted = rooms.filter((r) => r.consulted !== undefined);
  const skipped = rooms.filter((r) => r.skip !== undefined);
  const files = readdirSync(join(root, 'src'))
    .filter((f) => f.endsWith('.ts'))
    .sort();
  const line = (r, extra = '') => `- \`${r.folder}/\`${extra}: ${r.holds}`;
  return [
    LAYOUT_BEGIN,
    '',
    'One tool call, from the MCP request to the upstream request and back, crosses these rooms in order:',
    '',
    ...onPath.map((r) => line(r, ` (${r.stage})`)),
    '',
    'Consulted on the way:',
    '',
    ...consulted.map((r) => line(r)),
    '',
    'Rooms a reader of one call can skip:',
    '',
    ...skipped.map((r) => `${line(r)} Skip: ${r.skip}`),
    '',
    'Top-level files:',
    '',
    ...files.map((f) => `- \`src/${f}\`: ${fileSummary(root, f)}.`),
    '',
    LAYOUT_END,
  ].join('\n');
}

/** The README with its layout section rewritten; throws when the markers are missing. */
export function withLayout(readme, root = '.') {
  const begin = readme.indexOf(LAYOUT_BEGIN);
  const end = readme.indexOf(LAYOUT_END);
  if (begin < 0 || end < begin) throw new Error('README.md has no layout markers (scripts/layout.mjs)');
  return readme.slice(0, begin) + layoutSection(root) + readme.slice(end + LAYOUT_END.length);
}
