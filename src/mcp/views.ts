/**
 * MCP Apps (the io.modelcontextprotocol/ui extension): interactive views that hosts
 * render beside a tool's answer. Each view is one self-contained HTML file built from
 * views/ at build time (dist/views/*.html), served as a ui:// resource with no network
 * domains; tools link to it through `_meta.ui.resourceUri`. Results stay as they are
 * (the view reads structuredContent); a host that renders views is also told, in one
 * extra text block, that the person sees the chart.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { getUiCapability, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY, registerAppResource } from '@modelcontextprotocol/ext-apps/server';
import type { CallToolResult, ClientCapabilities, McpServer, ServerContext } from '@modelcontextprotocol/server';
import type { DatasetDefinition } from '../catalog/index.js';
import type { ToolDefinition } from './tool.js';

export interface ViewDefinition {
  name: string;
  uri: string;
  file: string;
  title: string;
  description: string;
  /** Catalog operation ids whose tools link to this view. */
  operationIds: readonly string[];
  /** What the model is told when the host renders the view. */
  note: string;
}

export const VIEWS: readonly ViewDefinition[] = [
  {
    name: 'dealer-gex-view',
    uri: 'ui://market-data-mcp/dealer-gex.html',
    file: 'dealer-gex.html',
    title: 'Dealer gamma exposure view',
    description:
      'Net dealer GEX by strike around spot, with the gamma flip, king strike and walls, and the session timeline of the levels.',
    operationIds: ['derived.dealer_gex_history'],
    note: 'The user sees this result as an interactive chart (net GEX by strike with spot, gamma flip, king strike and walls marked, and the session timeline), where they can switch snapshots and sessions themselves. Answer the question; there is no need to list every strike.',
  },
  {
    name: 'short-interest-view',
    uri: 'ui://market-data-mcp/short-interest.html',
    file: 'short-interest.html',
    title: 'Short interest view',
    description: 'The short-interest screener as ranked bars (short % of float, days to cover) and a ticker’s daily short volume ratio.',
    operationIds: ['shorts.short_screener', 'shorts.volume_and_ratio', 'shorts.volumes_by_exchange'],
    note: 'The user sees this result as an interactive chart (ranked short interest, or the daily short volume ratio), where they can pick a ticker to see its short volume ratio. Answer the question; there is no need to list every row.',
  },
];

const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';

export function viewFor(operationId: string): ViewDefinition | undefined {
  return VIEWS.find((v) => v.operationIds.includes(operationId));
}

/**
 * dist/views beside the bundled server (dist/cli.js → dist/views) or the compiled module
 * (dist/mcp/views.js → dist/views); the compiled tests run from dist-test/src/mcp and read
 * the same built files.
 */
function viewPath(file: string): string | undefined {
  const candidates = [
    new URL(`./views/${file}`, import.meta.url),
    new URL(`../views/${file}`, import.meta.url),
    new URL(`../../../dist/views/${file}`, import.meta.url),
  ];
  return candidates.map((u) => fileURLToPath(u)).find((p) => existsSync(p));
}

const pages = new Map<string, string>();

export function viewHtml(view: ViewDefinition): string {
  const known = pages.get(view.file);
  if (known !== undefined) return known;
  const path = viewPath(view.file);
  if (!path) throw new Error(`The view ${view.file} is not built; run npm run build.`);
  const html = readFileSync(path, 'utf8');
  pages.set(view.file, html);
  return html;
}

/** The resource metadata hosts read: no network of any kind, a border around the frame. */
const RESOURCE_UI_META = {
  ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }, prefersBorder: true },
};

export function registerViews(server: McpServer): void {
  for (const view of VIEWS) {
    registerAppResource(
      server,
      view.name,
      view.uri,
      { title: view.title, description: view.description, _meta: RESOURCE_UI_META },
      (uri) => ({
        contents: [{ uri: uri.href, mimeType: RESOURCE_MIME_TYPE, text: viewHtml(view), _meta: RESOURCE_UI_META }],
      }),
    );
  }
}

/**
 * Whether the client that sent this request renders MCP Apps views: 2026-07-28 requests
 * carry the client's capabilities in their own envelope; older sessions declared them once
 * at initialize (`declared`).
 */
export function hostRendersViews(ctx: ServerContext, declared: ClientCapabilities | undefined): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const perRequest = envelope?.[CLIENT_CAPABILITIES_KEY] as ClientCapabilities | undefined;
  const capability = getUiCapability(perRequest ?? declared);
  return capability?.mimeTypes?.includes(RESOURCE_MIME_TYPE) ?? false;
}

/** Adds the view's note after the result's own blocks; text and structuredContent stay unchanged. */
export function withViewNote(result: CallToolResult, view: ViewDefinition): CallToolResult {
  if (result.isError) return result;
  return { ...result, content: [...result.content, { type: 'text', text: view.note }] };
}

/**
 * A dataset tool linked to its view, if it has one: the same `_meta` that ext-apps'
 * registerAppTool writes (nested and legacy keys), and the note for hosts that render
 * views. `declared` reads what the session's client declared at initialize.
 */
export function withView(
  tool: ToolDefinition,
  dataset: Pick<DatasetDefinition, 'operationId'>,
  declared: () => ClientCapabilities | undefined,
): ToolDefinition {
  const view = viewFor(dataset.operationId);
  if (!view) return tool;
  return {
    ...tool,
    config: { ...tool.config, _meta: { ...tool.config._meta, ui: { resourceUri: view.uri }, [RESOURCE_URI_META_KEY]: view.uri } },
    handler: async (args, ctx, call) => {
      const result = await tool.handler(args, ctx, call);
      return hostRendersViews(ctx, declared()) ? withViewNote(result, view) : result;
    },
  };
}
