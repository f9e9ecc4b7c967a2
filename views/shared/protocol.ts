/** The MCP Apps message types the views use, from @modelcontextprotocol/ext-apps (types only, no bytes). */
import type { McpUiHostContext, McpUiToolResultNotification } from '@modelcontextprotocol/ext-apps';

/** A tools/call result as the host hands it to the view. */
export type ToolResult = McpUiToolResultNotification['params'];
export type HostContext = McpUiHostContext;
