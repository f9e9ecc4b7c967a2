/**
 * An own `__proto__` key in a call's arguments is dropped by the SDK's schema parse
 * (zod never copies it), so a tool would run as if it had not been sent. The README
 * promises a refusal: the key is renamed, as the message arrives, to one the parse keeps
 * and the screening refuses by its real name (src/mcp/arguments/screen.ts). The renaming
 * happens in what our transports hand the SDK: the stdio transport we make, wrapped
 * (markingTransport), and each HTTP request's body (markingHandler).
 */
import {
  isJsonContentType,
  type JSONRPCMessage,
  type McpHttpHandler,
  type MessageExtraInfo,
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/server';

/** What an own `__proto__` argument is renamed to as the message arrives. */
export const PROTO_ARGUMENT = '\u0000__proto__';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The message with `__proto__` in a tools/call's arguments renamed to PROTO_ARGUMENT; any other value is returned as it is. */
function markPrototypeArgument(message: unknown): unknown {
  if (!isRecord(message) || message['method'] !== 'tools/call' || !isRecord(message['params'])) return message;
  const args = message['params']['arguments'];
  if (!isRecord(args) || !Object.hasOwn(args, '__proto__')) return message;
  const renamed: Record<string, unknown> = {};
  for (const name of Object.keys(args)) {
    // defineProperty, not assignment: assigning `__proto__` would set the prototype.
    Object.defineProperty(renamed, name === '__proto__' ? PROTO_ARGUMENT : name, {
      value: args[name],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return { ...message, params: { ...message['params'], arguments: renamed } };
}

/** One message or a batch of them (the 2025-03-26 protocol), marked. */
function markBody(body: unknown): unknown {
  return Array.isArray(body) ? body.map((message: unknown) => markPrototypeArgument(message)) : markPrototypeArgument(body);
}

/** A transport whose incoming messages are marked before the SDK reads them; everything else is the inner transport's. */
class MarkingTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void) | undefined;

  constructor(private readonly inner: Transport) {}

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  start(): Promise<void> {
    // Marking changes a tools/call's arguments only: the message is still the JSON-RPC message it was.
    this.inner.onmessage = (message, extra) => this.onmessage?.(markPrototypeArgument(message) as JSONRPCMessage, extra);
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onclose = () => this.onclose?.();
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion = (version: string): void => {
    this.inner.setProtocolVersion?.(version);
  };
}

/** The transport we made (stdio), its messages marked as they arrive. */
export function markingTransport(inner: Transport): Transport {
  return new MarkingTransport(inner);
}

type FetchHandler = Pick<McpHttpHandler, 'fetch'>;

/**
 * The HTTP handler with each request's body marked. A JSON body is read here and handed to
 * the SDK parsed (its `parsedBody`, as a body parser's would be), so it is read and parsed
 * once, as before; any other body goes on as it came, for the SDK to answer. `seen` is
 * shown the parsed body as sent (the transport's audit line names its method and tool).
 */
export function markingHandler(handler: FetchHandler, seen?: (body: unknown) => void): FetchHandler {
  return {
    fetch: async (request, options) => {
      const json = request.method.toUpperCase() === 'POST' && isJsonContentType(request.headers.get('content-type'));
      if (!json || options?.parsedBody !== undefined) return handler.fetch(request, options);
      const text = await request.text();
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = undefined;
      }
      if (body !== undefined) seen?.(body);
      if (body !== undefined) return handler.fetch(request, { ...options, parsedBody: markBody(body) });
      // Empty or not JSON: the SDK answers it as it answers any such body, from the text it was.
      const { method, headers, signal } = request;
      return handler.fetch(new Request(request.url, { method, headers, signal, body: text }), options);
    },
  };
}
