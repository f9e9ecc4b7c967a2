/**
 * An own `__proto__` key in a call's arguments is dropped by the SDK's schema parse
 * (zod never copies it), so a tool would run as if it had not been sent. The README
 * promises a refusal: the key is renamed, as the message arrives, to one the parse keeps
 * and the screening refuses by its real name (src/mcp/tool-arguments.ts).
 */
import type { JSONRPCMessage, McpServer, MessageExtraInfo, Transport } from '@modelcontextprotocol/server';

/** What an own `__proto__` argument is renamed to as the message arrives. */
export const PROTO_ARGUMENT = '\u0000__proto__';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The message with `__proto__` in a tools/call's arguments renamed to PROTO_ARGUMENT; others unchanged. */
function markPrototypeArgument(message: JSONRPCMessage): JSONRPCMessage {
  if (!('method' in message) || message.method !== 'tools/call' || !isRecord(message.params)) return message;
  const args = message.params['arguments'];
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
  return { ...message, params: { ...message.params, arguments: renamed } };
}

/** Wraps the transport of every connection of `server` so that its messages are marked before the SDK parses them. */
export function guardPrototypeArguments(server: McpServer): void {
  const inner = server.server;
  const connect = inner.connect.bind(inner);
  inner.connect = async (transport: Transport): Promise<void> => {
    await connect(transport);
    const deliver = transport.onmessage;
    if (!deliver) return;
    transport.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) =>
      deliver.call(transport, markPrototypeArgument(message), extra);
  };
}
