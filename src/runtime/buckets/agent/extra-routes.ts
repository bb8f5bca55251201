// The manager's routes beyond object access: `{prefix}/buckets` (inventory page) and `{prefix}/mcp` (agent
// tools over MCP, only when the app configured an OAuth token resolver). The MCP SDK is loaded on the first
// agent request (it takes about a second to import), then the endpoint is reused.
import type { BucketManager } from '../bucket-manager.js';
import type { BucketHttpContext } from '../http-access.js';
import { handleInventory } from '../inventory/handle-inventory.js';
import { bucketAccessFromManager } from './bucket-access-from-manager.js';
import { createAgentTools, type AgentToolOptions } from './agent-tools.js';
import type { McpHandler, ResolveAgentToken } from './create-mcp-handler.js';

/** Agent options of createBucketManager: the app's OAuth server issues the tokens, this resolves them. */
export interface AgentEndpointOptions extends AgentToolOptions {
  /** Turn an access token into { userId, scopes } (null when invalid, expired or revoked). */
  resolveAgentToken: ResolveAgentToken;
  /** Absolute URL of OAuth protected-resource metadata announced in WWW-Authenticate (RFC 9728). */
  resourceMetadataUrl?: string;
  serverInfo?: { name: string; version: string };
}

/** Inventory options of createBucketManager. */
export interface InventoryOptions {
  /** Send signed-out browsers here (303) instead of a 401 page. */
  signInPath?: string;
}

/** Returns a handler for the extra routes, or null for routes it does not own. */
export function createExtraRoutes(
  manager: () => BucketManager,
  agent: AgentEndpointOptions | undefined,
  inventory: InventoryOptions = {},
): (http: BucketHttpContext) => Promise<Response> | null {
  let mcp: Promise<McpHandler> | null = null;
  return (http) => {
    if (http.route === 'buckets' || http.route === 'buckets/') {
      return handleInventory(bucketAccessFromManager(manager()), {
        request: http.request,
        prefix: http.prefix,
        identity: http.identity,
        ...(inventory.signInPath === undefined ? {} : { signInPath: inventory.signInPath }),
      });
    }
    if (http.route === 'mcp' && agent !== undefined) {
      mcp ??= import('./create-mcp-handler.js').then(({ createMcpHandler }) =>
        createMcpHandler({
          tools: createAgentTools(bucketAccessFromManager(manager()), agent),
          resolveAgentToken: agent.resolveAgentToken,
          ...(agent.resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl: agent.resourceMetadataUrl }),
          ...(agent.serverInfo === undefined ? {} : { serverInfo: agent.serverInfo }),
          ...(http.report === undefined ? {} : { onError: http.report }),
        }),
      );
      return mcp.then((handle) => handle(http.request));
    }
    return null;
  };
}
