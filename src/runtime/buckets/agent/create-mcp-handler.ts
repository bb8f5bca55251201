// The agent tools over the Model Context Protocol (Streamable HTTP, stateless, JSON responses) as a Fetch
// handler. Each POST carries an OAuth bearer access token; the app's resolver turns it into { userId, scopes }.
// A fresh McpServer per request closes over that identity, so no tool can act for anyone else.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RuntimeError, isExposedError } from '../../errors.js';
import { hasAgentScope, parseAgentIdentity, type AgentIdentity } from './agent-identity.js';
import type { AgentTool } from './agent-tools.js';

/** Resolves an OAuth access token issued by the app's authorization server; null when unknown/expired/revoked. */
export type ResolveAgentToken = (token: string) => AgentIdentity | null | Promise<AgentIdentity | null>;

/** Options of createMcpHandler. */
export interface McpHandlerOptions {
  readonly tools: readonly AgentTool[];
  readonly resolveAgentToken: ResolveAgentToken;
  /** Server name and version announced to clients (default "svc-buckets"). */
  readonly serverInfo?: { name: string; version: string };
  /** Absolute URL of the OAuth protected-resource metadata, announced in WWW-Authenticate. */
  readonly resourceMetadataUrl?: string;
  /** Receives unexpected tool failures (default console.error). */
  readonly onError?: (error: unknown) => void;
  /** Largest accepted request body (default 2 MiB: a 256 KiB base64 put plus framing). */
  readonly maxRequestBytes?: number;
}

/** Fetch handler for the MCP endpoint (e.g. mounted at `{prefix}/mcp`). */
export type McpHandler = (request: Request) => Promise<Response>;

/** Build the MCP endpoint over the agent tools. */
export function createMcpHandler(options: McpHandlerOptions): McpHandler {
  const serverInfo = options.serverInfo ?? { name: 'svc-buckets', version: '1' };
  const report = options.onError ?? ((error: unknown) => console.error('svc buckets: agent tool failed', error));
  const maxRequestBytes = options.maxRequestBytes ?? 2 * 1024 * 1024;

  function challenge(status: 401 | 403, error: string, description: string): Response {
    const parts = [`Bearer error="${error}"`, `error_description="${description}"`];
    if (status === 403) parts.push('scope="agent:read agent:write"');
    if (options.resourceMetadataUrl !== undefined) parts.push(`resource_metadata="${options.resourceMetadataUrl}"`);
    return new Response(JSON.stringify({ error: { code: status === 401 ? 'SVC_RUNTIME_UNAUTHENTICATED' : 'SVC_BUCKET_FORBIDDEN', message: description } }), {
      status,
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'www-authenticate': parts.join(', ') },
    });
  }

  async function authenticate(request: Request): Promise<AgentIdentity | Response> {
    const header = request.headers.get('authorization') ?? '';
    const match = /^Bearer ([A-Za-z0-9\-._~+/]{1,4096}=*)$/.exec(header.trim());
    if (match === null) return challenge(401, 'invalid_request', 'Send an OAuth access token as Authorization: Bearer <token>.');
    const resolved = await options.resolveAgentToken(match[1]!);
    if (resolved === null || resolved === undefined) return challenge(401, 'invalid_token', 'The access token is invalid or expired.');
    const identity = parseAgentIdentity(resolved);
    if (!hasAgentScope(identity)) return challenge(403, 'insufficient_scope', 'The token grants neither agent:read nor agent:write.');
    return identity;
  }

  function serverFor(identity: AgentIdentity, origin: string): McpServer {
    const server = new McpServer(serverInfo, { capabilities: { tools: {} } });
    for (const tool of options.tools) {
      server.registerTool(
        tool.name,
        { title: tool.title, description: tool.description, inputSchema: tool.inputSchema },
        async (args): Promise<CallToolResult> => {
          try {
            const result = await tool.run(args, identity, { origin });
            return {
              content: [
                { type: 'text', text: JSON.stringify(result.json) },
                ...result.images.map((image) => ({ type: 'image' as const, data: image.data, mimeType: image.mimeType })),
              ],
              structuredContent: result.json,
            };
          } catch (error) {
            if (!isExposedError(error)) report(error);
            const body = isExposedError(error)
              ? { code: error.code, message: error.message }
              : { code: error instanceof RuntimeError ? error.code : 'SVC_RUNTIME_INTERNAL', message: 'Internal error.' };
            return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: body }) }], structuredContent: { error: body } };
          }
        },
      );
    }
    return server;
  }

  return async (request: Request): Promise<Response> => {
    const method = request.method.toUpperCase();
    // Stateless endpoint: no server-initiated streams and no sessions to delete.
    if (method !== 'POST')
      return new Response(JSON.stringify({ error: { code: 'SVC_RUNTIME_METHOD_NOT_ALLOWED', message: 'Use POST (MCP Streamable HTTP, stateless).' } }), {
        status: 405,
        headers: { allow: 'POST', 'content-type': 'application/json; charset=utf-8' },
      });
    const identity = await authenticate(request);
    if (identity instanceof Response) return identity;
    const server = serverFor(identity, new URL(request.url).origin);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: maxRequestBytes,
    });
    try {
      await server.connect(transport);
      const response = await transport.handleRequest(request, {
        authInfo: { token: '[redacted]', clientId: identity.clientId ?? '', scopes: [...identity.scopes], extra: { userId: identity.userId } },
      });
      const headers = new Headers(response.headers);
      headers.set('cache-control', 'no-store');
      headers.set('x-content-type-options', 'nosniff');
      return new Response(await response.arrayBuffer(), { status: response.status, headers });
    } finally {
      await server.close().catch(() => undefined);
    }
  };
}
