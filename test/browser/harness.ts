/**
 * The browser test's harness: Debian's chromium driven by playwright-core, the minimal
 * AppBridge host page, an MCP client on the built server in --demo that declares the
 * MCP Apps extension, and checks of what a screenshot shows.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, type CallToolResult, type Tool } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { build } from 'esbuild';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { CLI, serverEnv } from '../helpers/mcp.js';

export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/** Why the browser tests cannot run here, or false when they can. */
export function skipReason(): string | false {
  return existsSync(CHROMIUM) ? false : `chromium not found at ${CHROMIUM} (apt-get install chromium; .ci/run installs it)`;
}

/** Screenshots are kept here for CI to collect; the folder is printed by the test. */
export const SHOTS = process.env['VIEW_SCREENSHOTS_DIR'] ?? mkdtempSync(join(tmpdir(), 'market-data-mcp-views-'));

const HOST_SOURCE = fileURLToPath(new URL('../../../test/browser/host/host-page.ts', import.meta.url));

export interface UiClient {
  client: Client;
  tools: Map<string, Tool>;
  close: () => Promise<void>;
}

/** A client that tells the server it renders MCP Apps views, like Claude or VS Code do. */
export async function connectUiClient(renderViews = true): Promise<UiClient> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, '--demo'],
    env: serverEnv({ env: { MARKET_DATA_LOG_LEVEL: 'warn' } }),
    stderr: 'pipe',
  });
  const capabilities = renderViews ? { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] } } } : {};
  const client = new Client({ name: 'browser-test-host', version: '1.0.0' }, { capabilities });
  await client.connect(transport);
  const { tools } = await client.listTools();
  return { client, tools: new Map(tools.map((t) => [t.name, t])), close: () => client.close() };
}

/** What the host page (host/host-page.ts) offers the test, as seen from Node. */
interface HostApi {
  mount: (options: { html: string; tool: Tool | undefined; args: Record<string, unknown>; theme: 'light' | 'dark' }) => Promise<void>;
  result: (result: CallToolResult) => Promise<void>;
  theme: (theme: 'light' | 'dark') => void;
  measure: (pngBase64: string) => Promise<{ colours: number; inked: number }>;
}

/** The host page's global; only usable inside page.evaluate (playwright sends the function's source, not its closure). */
type HostGlobal = { testHost: HostApi };

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Every URL the page or a view asked for: must stay empty (views have no network). */
  requests: string[];
  close: () => Promise<void>;
}

async function hostScript(): Promise<string> {
  const result = await build({
    entryPoints: [HOST_SOURCE],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  const output = result.outputFiles[0];
  if (!output) throw new Error('host page did not build');
  return output.text;
}

export async function openHost(ui: UiClient): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'mdmcp-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 760, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const requests: string[] = [];
  context.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith('about:') && !url.startsWith('data:')) requests.push(url);
  });
  const page = context.pages()[0] ?? (await context.newPage());
  await page.exposeFunction('mcpCallTool', async (params: { name: string; arguments?: Record<string, unknown> }) =>
    ui.client.callTool({ name: params.name, arguments: params.arguments ?? {} }),
  );
  const script = (await hostScript()).replaceAll('</script', '<\\/script');
  await page.setContent(
    `<!doctype html><html><head><meta charset="utf-8"></head><body style="margin:0;padding:8px"><script>${script}</script></body></html>`,
  );
  return {
    context,
    page,
    requests,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export async function viewHtml(
  ui: UiClient,
  toolName: string,
): Promise<{ uri: string; html: string; mimeType: string | undefined; meta: unknown }> {
  const tool = ui.tools.get(toolName);
  const ui_ = (tool?._meta as { ui?: { resourceUri?: string } } | undefined)?.ui;
  const uri = ui_?.resourceUri;
  if (!uri) throw new Error(`${toolName} links no view`);
  const read = await ui.client.readResource({ uri });
  const content = read.contents[0];
  if (!content || !('text' in content)) throw new Error(`${uri} has no text`);
  return { uri, html: content.text, mimeType: content.mimeType, meta: content._meta };
}

/** Mounts the tool's view in the host page, as a host does after the agent's call. */
export async function mountView(
  browser: Browser,
  ui: UiClient,
  toolName: string,
  args: Record<string, unknown>,
  result: CallToolResult,
  theme: 'light' | 'dark' = 'light',
): Promise<void> {
  const { html } = await viewHtml(ui, toolName);
  const tool = ui.tools.get(toolName);
  // As JSON text: playwright's typing of structured arguments recurses too deep for Tool.
  await browser.page.evaluate(
    async (json) => (globalThis as unknown as HostGlobal).testHost.mount(JSON.parse(json) as Parameters<HostApi['mount']>[0]),
    JSON.stringify({ html, tool, args, theme }),
  );
  await browser.page.evaluate(
    async (json) => (globalThis as unknown as HostGlobal).testHost.result(JSON.parse(json) as CallToolResult),
    JSON.stringify(result),
  );
}

export async function setTheme(browser: Browser, theme: 'light' | 'dark'): Promise<void> {
  await browser.page.evaluate((t) => (globalThis as unknown as HostGlobal).testHost.theme(t), theme);
}

export function view(browser: Browser): ReturnType<Page['frameLocator']> {
  return browser.page.frameLocator('iframe#view');
}

/**
 * Saves a screenshot of the view's frame and measures it in the browser (the host page's
 * canvas): how many distinct colours, and what share of pixels differ from the background.
 */
export async function screenshot(browser: Browser, name: string): Promise<{ path: string; colours: number; inked: number }> {
  const png = await browser.page.locator('iframe#view').screenshot();
  const path = join(SHOTS, `${name}.png`);
  writeFileSync(path, png);
  const measured = await browser.page.evaluate(
    async (b64) => (globalThis as unknown as HostGlobal).testHost.measure(b64),
    png.toString('base64'),
  );
  return { path, ...measured };
}

/** WCAG contrast ratio between the view's body text and its background. */
export async function bodyContrast(browser: Browser): Promise<{ ratio: number; backgroundLuminance: number }> {
  const frame = browser.page.frames().find((f) => f !== browser.page.mainFrame());
  if (!frame) throw new Error('no view frame');
  // A string, evaluated inside the view: this file is compiled without the DOM's types.
  const colours = await frame.evaluate<{ fg: string; bg: string }>(
    '({ fg: getComputedStyle(document.body).color, bg: getComputedStyle(document.documentElement).backgroundColor })',
  );
  const channels = (css: string): number[] => (css.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
  const luminance = (css: string): number => {
    const [r = 0, g = 0, b = 0] = channels(css).map((c) => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [hi, lo] = [luminance(colours.fg), luminance(colours.bg)].sort((a, b) => b - a);
  return { ratio: ((hi ?? 0) + 0.05) / ((lo ?? 0) + 0.05), backgroundLuminance: luminance(colours.bg) };
}

/** An attribute of every element a locator matches, in document order. */
export async function attributes(locator: Locator, name: string): Promise<string[]> {
  // Typed by hand: this file is compiled without the DOM's types.
  return locator.evaluateAll(
    (elements: { getAttribute: (n: string) => string | null }[], n: string) => elements.map((e) => e.getAttribute(n) ?? ''),
    name,
  );
}
