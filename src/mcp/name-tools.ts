/**
 * The tools over several names or datasets (issue 32), registered beside the dataset tools:
 * each is offered where the datasets it reads are, and its description's cost is stated
 * again once the upstream's page size has been seen (src/mcp/request-costs.ts).
 */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/server';
import { BRIEFING_DATASETS, BRIEFING_TOOL, briefingDescription, registerTickerBriefing } from './ticker-briefing.js';
import { DEALER_COMPARE_DATASETS, DEALER_COMPARE_TOOL, dealerCompareDescription, registerDealerCompare } from './dealer-compare.js';
import type { FanOutDeps } from './fan-out.js';
import { registerSectorShortScreen, SECTOR_SCREEN_DATASETS, SECTOR_SCREEN_TOOL, sectorScreenDescription } from './sector-short-screen.js';

interface NameTool {
  name: string;
  /** Offered when every one (`all`) or any one (`any`) of these datasets is. */
  datasets: readonly string[];
  needs: 'all' | 'any';
  register: (server: McpServer, deps: FanOutDeps) => RegisteredTool;
  describe: (deps: FanOutDeps) => string;
}

const NAME_TOOLS: readonly NameTool[] = [
  {
    name: DEALER_COMPARE_TOOL,
    datasets: DEALER_COMPARE_DATASETS,
    needs: 'all',
    register: registerDealerCompare,
    describe: dealerCompareDescription,
  },
  {
    name: SECTOR_SCREEN_TOOL,
    datasets: SECTOR_SCREEN_DATASETS,
    needs: 'all',
    register: registerSectorShortScreen,
    describe: sectorScreenDescription,
  },
  { name: BRIEFING_TOOL, datasets: BRIEFING_DATASETS, needs: 'any', register: registerTickerBriefing, describe: briefingDescription },
];

/** Their names, kept from any upstream operation's tool name. */
export const NAME_TOOL_NAMES: readonly string[] = NAME_TOOLS.map((t) => t.name);

/** The tools offered when `offered` tells which datasets are. */
export function offeredNameTools(offered: (operationId: string) => boolean): string[] {
  return NAME_TOOLS.filter((t) => (t.needs === 'all' ? t.datasets.every(offered) : t.datasets.some(offered))).map((t) => t.name);
}

/** Registers the tools offered; `describeAgain` states their costs anew (after a page size was seen). */
export function registerNameTools(
  server: McpServer,
  deps: FanOutDeps,
  offered: (operationId: string) => boolean,
): { describeAgain: () => void } {
  const registered = NAME_TOOLS.filter((t) => offeredNameTools(offered).includes(t.name)).map((t) => ({
    tool: t,
    handle: t.register(server, deps),
  }));
  return {
    describeAgain: () => {
      for (const { tool, handle } of registered) {
        const description = tool.describe(deps);
        if (handle.description !== description) handle.update({ description });
      }
    },
  };
}
