// Agent tools and their MCP endpoint: public surface (re-exported by @svc-dev/svc/runtime through ../index.ts).
export { AGENT_SCOPES, requireScope, type AgentIdentity, type AgentScope } from './agent-identity.js';
export { createAgentTools, DEFAULT_INLINE_BYTES, READ_URL_TTL_MS, type AgentTool, type AgentToolOptions, type AgentToolResult } from './agent-tools.js';
// createMcpHandler is not re-exported here: it loads the MCP SDK; import it from the agent folder when needed.
export type { McpHandler, McpHandlerOptions, ResolveAgentToken } from './create-mcp-handler.js';
export { bucketAccessFromManager } from './bucket-access-from-manager.js';
export type { BucketAccess, ObjectAddress } from './bucket-access.js';
export type { AgentEndpointOptions, InventoryOptions } from './extra-routes.js';
