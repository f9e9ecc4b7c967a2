/**
 * The tools over several names or datasets (issue 32), offered beside the dataset tools as
 * volatility_compare is: with their toolset or by name, wherever a dataset they read is there
 * for the key (whether or not that dataset's own tool is offered). Each is a value
 * (ToolDefinition) built from the fan-out's dependencies; its description's cost is stated
 * again once the upstream's page size has been seen (request-costs.ts), which is why each
 * also says how to describe itself.
 */
import type { ToolDefinition } from '../tool.js';
import type { OfferedTool } from './selection.js';
import type { FanOutReach } from '../key-reach.js';
import { BRIEFING_DATASETS, BRIEFING_REACH, BRIEFING_TOOL, briefingDescription, tickerBriefingTool } from './ticker-briefing.js';
import {
  DEALER_COMPARE_DATASETS,
  DEALER_COMPARE_REACH,
  DEALER_COMPARE_TOOL,
  dealerCompareDescription,
  dealerCompareTool,
} from './dealer-compare.js';
import type { FanOutDeps } from './fan-out.js';
import {
  SECTOR_SCREEN_DATASETS,
  SECTOR_SCREEN_REACH,
  SECTOR_SCREEN_TOOL,
  sectorScreenDescription,
  sectorShortScreenTool,
} from './sector-short-screen.js';

export interface NameTool {
  name: string;
  /** The toolset it is offered with (--toolsets), as the README's tool table names it. */
  toolset: string;
  /** Offered when every one (`all`) or any one (`any`) of these datasets can be read. */
  datasets: readonly string[];
  needs: 'all' | 'any';
  /** Its parts, for what discover says this key can call of it (key-reach.ts). */
  reach: FanOutReach;
  tool: (deps: FanOutDeps) => ToolDefinition;
  describe: (deps: FanOutDeps) => string;
}

const NAME_TOOLS: readonly NameTool[] = [
  {
    name: DEALER_COMPARE_TOOL,
    toolset: 'derived',
    datasets: DEALER_COMPARE_DATASETS,
    needs: 'all',
    reach: DEALER_COMPARE_REACH,
    tool: dealerCompareTool,
    describe: dealerCompareDescription,
  },
  {
    name: SECTOR_SCREEN_TOOL,
    toolset: 'shorts',
    datasets: SECTOR_SCREEN_DATASETS,
    needs: 'all',
    reach: SECTOR_SCREEN_REACH,
    tool: sectorShortScreenTool,
    describe: sectorScreenDescription,
  },
  // A squeeze check: offered with the short datasets, though it reads options, dark-pool and volatility ones too.
  {
    name: BRIEFING_TOOL,
    toolset: 'shorts',
    datasets: BRIEFING_DATASETS,
    needs: 'any',
    reach: BRIEFING_REACH,
    tool: tickerBriefingTool,
    describe: briefingDescription,
  },
];

/** Their names, kept from any upstream operation's tool name. */
export const NAME_TOOL_NAMES: readonly string[] = NAME_TOOLS.map((t) => t.name);

/** The same with their toolsets: what --tools and --toolsets may name. */
export const NAME_TOOL_SETS: readonly OfferedTool[] = NAME_TOOLS.map((t) => ({ name: t.name, toolset: t.toolset }));

/**
 * The tools offered when `readable` tells which datasets can be read (known and not hidden)
 * and `selected` which tools the user chose (every one without a choice).
 */
export function offeredNameTools(
  readable: (operationId: string) => boolean,
  selected: (tool: OfferedTool) => boolean = () => true,
): readonly NameTool[] {
  return NAME_TOOLS.filter(
    (t) => selected({ name: t.name, toolset: t.toolset }) && (t.needs === 'all' ? t.datasets.every(readable) : t.datasets.some(readable)),
  );
}
