/**
 * The view's side of the MCP Apps protocol (ui/initialize, tool results, host context,
 * tools/call through the host), over postMessage to the parent frame.
 *
 * Why not the package's `App` class: it extends the SDK's Protocol and validates with
 * zod, which bundles to 650 KB (400 KB with zod's locales stubbed out), against a budget
 * of 250 KB per view. The messages are few and plain JSON-RPC, so this speaks them
 * directly; the types come from @modelcontextprotocol/ext-apps (type-only imports, no
 * bytes), and the browser test drives this file through the package's own AppBridge.
 */
import type {
  LATEST_PROTOCOL_VERSION,
  McpUiInitializeRequest,
  McpUiInitializeResult,
  McpUiToolInputNotification,
} from '@modelcontextprotocol/ext-apps';
import type { HostContext, ToolResult } from './protocol.js';

const PROTOCOL_VERSION: typeof LATEST_PROTOCOL_VERSION = '2026-01-26';

export type { HostContext, ToolResult };

interface JsonRpcMessage {
  jsonrpc: '2.0';
  id?: string | number;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

export interface HostLinkHandlers {
  onToolInput?: (args: Record<string, unknown>) => void;
  onToolResult?: (result: ToolResult) => void;
  onHostContext?: (context: HostContext) => void;
}

export class HostLink {
  private nextId = 1;
  private readonly pending = new Map<string | number, Pending>();
  private context: HostContext = {};

  constructor(
    private readonly appInfo: McpUiInitializeRequest['params']['appInfo'],
    private readonly handlers: HostLinkHandlers,
    private readonly parent: Window = window.parent,
  ) {}

  /** Listens, then performs the handshake; resolves with the host's context. */
  async connect(): Promise<HostContext> {
    window.addEventListener('message', (event: MessageEvent<unknown>) => {
      // Only the frame that embeds us speaks for the host.
      if (event.source !== this.parent) return;
      this.receive(event.data);
    });
    const params: McpUiInitializeRequest['params'] = { appInfo: this.appInfo, appCapabilities: {}, protocolVersion: PROTOCOL_VERSION };
    const result = (await this.request('ui/initialize', params)) as McpUiInitializeResult;
    this.context = result.hostContext ?? {};
    this.handlers.onHostContext?.(this.context);
    this.notify('ui/notifications/initialized', {});
    this.reportSize();
    return this.context;
  }

  hostContext(): HostContext {
    return this.context;
  }

  /** tools/call on our own server, proxied by the host. */
  async callServerTool(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    return (await this.request('tools/call', { name, arguments: args })) as ToolResult;
  }

  private request(method: string, params: unknown): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.post({ jsonrpc: '2.0', id, method, params });
    });
  }

  private notify(method: string, params: unknown): void {
    this.post({ jsonrpc: '2.0', method, params });
  }

  private post(message: JsonRpcMessage): void {
    this.parent.postMessage(message, '*');
  }

  private receive(data: unknown): void {
    if (typeof data !== 'object' || data === null || (data as JsonRpcMessage).jsonrpc !== '2.0') return;
    const message = data as JsonRpcMessage;
    if (message.method === undefined && message.id !== undefined) {
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      if (message.error) waiting.reject(new Error(message.error.message));
      else waiting.resolve(message.result);
      return;
    }
    if (message.method !== undefined && message.id !== undefined) {
      // Requests from the host (ping, ui/resource-teardown): nothing to clean up, so say yes.
      this.post({ jsonrpc: '2.0', id: message.id, result: {} });
      return;
    }
    this.dispatch(message.method, message.params);
  }

  private dispatch(method: string | undefined, params: unknown): void {
    switch (method) {
      case 'ui/notifications/tool-input':
        this.handlers.onToolInput?.((params as McpUiToolInputNotification['params']).arguments ?? {});
        break;
      case 'ui/notifications/tool-result':
        this.handlers.onToolResult?.(params as ToolResult);
        break;
      case 'ui/notifications/host-context-changed':
        this.context = { ...this.context, ...(params as HostContext) };
        this.handlers.onHostContext?.(this.context);
        break;
      default:
        break;
    }
  }

  /** Tells the host our height whenever the content changes, so it can size the frame. */
  private reportSize(): void {
    let last = 0;
    const send = (): void => {
      const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
      if (height === last) return;
      last = height;
      this.notify('ui/notifications/size-changed', { width: Math.ceil(window.innerWidth), height });
    };
    new ResizeObserver(send).observe(document.body);
    send();
  }
}
