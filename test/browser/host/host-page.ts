/**
 * A minimal MCP Apps host for the browser test, built on the package's own AppBridge:
 * it puts a view's HTML in a sandboxed frame under the CSP a host derives from empty
 * domains, hands it the tool input and result, and forwards the view's tools/call to
 * the test (which holds the MCP client connected to the server).
 */
import { AppBridge, PostMessageTransport, type McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-bridge';

type CallToolParams = { name: string; arguments?: Record<string, unknown> | undefined };
type CallToolResult = Parameters<AppBridge['sendToolResult']>[0];

interface MountOptions {
  html: string;
  tool: NonNullable<McpUiHostContext['toolInfo']>['tool'];
  args: Record<string, unknown>;
  theme: 'light' | 'dark';
}

declare global {
  interface Window {
    /** Provided by the test through page.exposeFunction. */
    mcpCallTool: (params: CallToolParams) => Promise<CallToolResult>;
    testHost: {
      mount: (options: MountOptions) => Promise<void>;
      result: (result: CallToolResult) => Promise<void>;
      theme: (theme: 'light' | 'dark') => void;
      measure: (pngBase64: string) => Promise<{ colours: number; inked: number }>;
      calls: CallToolParams[];
    };
  }
}

/** What a host sets when the resource declares no domains: inline code only, no network. */
const CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'none'; frame-src 'none'";

let bridge: AppBridge | undefined;
let context: McpUiHostContext = {};
const calls: CallToolParams[] = [];

async function mount(options: MountOptions): Promise<void> {
  document.getElementById('view')?.remove();
  const frame = document.createElement('iframe');
  frame.id = 'view';
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.style.cssText = 'width:720px;height:400px;border:0;display:block';
  frame.srcdoc = options.html.replace('<head>', `<head><meta http-equiv="Content-Security-Policy" content="${CSP}">`);
  document.body.style.background = options.theme === 'dark' ? '#0b0f17' : '#ffffff';
  document.body.append(frame);
  const target = frame.contentWindow;
  if (!target) throw new Error('no frame window');

  context = {
    theme: options.theme,
    displayMode: 'inline',
    platform: 'web',
    toolInfo: { tool: options.tool },
    containerDimensions: { width: 720, maxHeight: 3000 },
  };
  bridge = new AppBridge(null, { name: 'browser-test-host', version: '1.0.0' }, { serverTools: {} }, { hostContext: context });
  bridge.oncalltool = async (params) => {
    calls.push(params);
    return window.mcpCallTool(params);
  };
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) frame.style.height = `${height}px`;
  };
  const initialized = new Promise<void>((resolve) => (bridge ? (bridge.oninitialized = () => resolve()) : resolve()));
  await bridge.connect(new PostMessageTransport(target, target));
  await initialized;
  await bridge.sendToolInput({ arguments: options.args });
}

/** Distinct colours, and the share of pixels that differ from the top-left (background) one. */
async function measure(pngBase64: string): Promise<{ colours: number; inked: number }> {
  const bitmap = await createImageBitmap(await (await fetch(`data:image/png;base64,${pngBase64}`)).blob());
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const ctx = canvas.getContext('2d');
  if (!ctx) return { colours: 0, inked: 0 };
  ctx.drawImage(bitmap, 0, 0);
  const { data } = ctx.getImageData(0, 0, bitmap.width, bitmap.height);
  const [r0 = 0, g0 = 0, b0 = 0] = data;
  const colours = new Set<number>();
  let inked = 0;
  for (let i = 0; i < data.length; i += 4) {
    const [r = 0, g = 0, b = 0] = [data[i], data[i + 1], data[i + 2]];
    colours.add((r << 16) | (g << 8) | b);
    if (Math.abs(r - r0) + Math.abs(g - g0) + Math.abs(b - b0) > 30) inked++;
  }
  return { colours: colours.size, inked: inked / (data.length / 4) };
}

window.testHost = {
  mount,
  result: async (result) => {
    await bridge?.sendToolResult(result);
  },
  theme: (theme) => {
    document.body.style.background = theme === 'dark' ? '#0b0f17' : '#ffffff';
    context = { ...context, theme };
    bridge?.setHostContext(context);
  },
  measure,
  calls,
};
