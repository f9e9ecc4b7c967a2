/**
 * Which tools a server offers, as users of other servers ask for them: toolsets (`all` and
 * `default` name every one, as GitHub's server takes them), single tools (`--tools`, as
 * GitHub and Stripe offer) and tools left out (`--exclude-tools`). A name that is neither
 * a toolset nor a tool is told at start and in api_status with the nearest valid names:
 * a typo must not quietly leave a tool out, nor leave only api_status.
 */
import { distance } from 'fastest-levenshtein';

/** Words that name every toolset: `all` (GitHub's server takes it) and `default`, which is all of them here. */
const EVERY_TOOLSET: ReadonlySet<string> = new Set(['all', 'default']);

/** Offered whatever is asked: it is free, and it is where the server says what it could not use. */
export const ALWAYS_OFFERED = 'api_status';

export interface SelectionRequest {
  toolsets?: readonly string[] | undefined;
  tools?: readonly string[] | undefined;
  excludeTools?: readonly string[] | undefined;
}

export interface OfferedTool {
  name: string;
  toolset: string;
}

export interface ToolSelection {
  offers(tool: OfferedTool): boolean;
}

/**
 * Toolsets and tools add up (`--toolsets shorts --tools volatility_compare` offers both);
 * `--tools` alone offers only those tools; `--exclude-tools` then takes tools away.
 */
export function selectTools(request: SelectionRequest): ToolSelection {
  const toolsets = request.toolsets ?? [];
  const tools = new Set(request.tools ?? []);
  const excluded = new Set(request.excludeTools ?? []);
  const everyToolset = toolsets.some((t) => EVERY_TOOLSET.has(t)) || (toolsets.length === 0 && tools.size === 0);
  const named = new Set(toolsets);
  return {
    offers({ name, toolset }) {
      if (name === ALWAYS_OFFERED) return true;
      if (excluded.has(name)) return false;
      return everyToolset || named.has(toolset) || tools.has(name);
    },
  };
}

/** What the server offers or could offer, to check names against. */
export interface KnownTools {
  toolsets: readonly string[];
  tools: readonly string[];
}

/** Sentences for the user, one a setting, naming what is not a toolset or a tool and what was likely meant. */
export function selectionWarnings(request: SelectionRequest, known: KnownTools): string[] {
  const warnings: string[] = [];
  const toolsets = new Set(known.toolsets);
  const tools = new Set(known.tools);
  const unknownToolsets = (request.toolsets ?? []).filter((t) => !toolsets.has(t) && !EVERY_TOOLSET.has(t));
  if (unknownToolsets.length > 0) {
    warnings.push(
      `Unknown toolset${unknownToolsets.length > 1 ? 's' : ''} ${unknownToolsets.map((t) => described(t, known, 'toolset')).join(', ')} in MARKET_DATA_TOOLSETS or --toolsets. Valid toolsets: ${known.toolsets.join(', ')} (or all).`,
    );
  }
  for (const [list, where] of [
    [request.tools, 'MARKET_DATA_TOOLS or --tools'],
    [request.excludeTools, 'MARKET_DATA_EXCLUDE_TOOLS or --exclude-tools'],
  ] as const) {
    const unknown = (list ?? []).filter((t) => !tools.has(t));
    if (unknown.length === 0) continue;
    const anyNear = unknown.some((t) => nearest(t, known.tools).length > 0 || toolsets.has(t));
    warnings.push(
      `Unknown tool${unknown.length > 1 ? 's' : ''} ${unknown.map((t) => described(t, known, 'tool')).join(', ')} in ${where}.${anyNear ? ' tools/list and the README name every tool.' : ` Tools: ${known.tools.join(', ')}.`}`,
    );
  }
  if (request.excludeTools?.includes(ALWAYS_OFFERED))
    warnings.push(
      `${ALWAYS_OFFERED} is always offered (MARKET_DATA_EXCLUDE_TOOLS or --exclude-tools): it is free, and it says what the server could not use.`,
    );
  return warnings;
}

/**
 * A name not shaped like ours may be a key pasted in the wrong place: never echo it. Ours
 * are lower case, short, with few digits; a key has capitals, or is long, or is mostly
 * digits and hex.
 */
function shown(name: string): string {
  const shaped = /^[a-z][a-z0-9_-]{0,40}$/.test(name) && (name.match(/\d/g) ?? []).length <= 4;
  return shaped ? `"${name}"` : '[not shown: not a tool or toolset name]';
}

function described(name: string, known: KnownTools, kind: 'tool' | 'toolset'): string {
  const label = shown(name);
  if (!label.startsWith('"')) return label;
  // The right name in the wrong list: `--tools shorts`, `--toolsets shorts_short_screener`.
  if (kind === 'tool' && known.toolsets.includes(name)) return `${label} (a toolset: use --toolsets ${name})`;
  if (kind === 'toolset' && known.tools.includes(name)) return `${label} (a tool: use --tools ${name})`;
  const near = nearest(name, kind === 'tool' ? known.tools : known.toolsets);
  return near.length > 0 ? `${label} (did you mean ${near.map((n) => `"${n}"`).join(' or ')}?)` : label;
}

/**
 * The valid names a mistyped one most likely meant: a few edits away (the more the longer
 * the name), or the start of a longer name (`derived_dealer_gex` for the history tool).
 */
export function nearest(name: string, candidates: readonly string[]): string[] {
  const given = name.toLowerCase();
  if (given.length === 0) return [];
  const allowed = Math.max(2, Math.floor(given.length / 4));
  return candidates
    .map((candidate) => {
      const c = candidate.toLowerCase();
      const edits = distance(given, c);
      const startsIt = given.length >= 4 && c.startsWith(given);
      return { candidate, score: startsIt ? Math.min(edits, 1) : edits };
    })
    .filter(({ score }) => score <= allowed)
    .sort((a, b) => a.score - b.score)
    .slice(0, 3)
    .map(({ candidate }) => candidate);
}
