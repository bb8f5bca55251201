// Who an agent acts for: resolved from the OAuth access token by the app (`resolveAgentToken`), never from
// a tool argument. Tools run as that user, in that user's partition, with the token's scopes.
import { z } from 'zod';
import { RuntimeError } from '../../errors.js';

/** Token scopes that grant the agent tools: read (list, read) and write (put, delete, transform). */
export const AGENT_SCOPES = { read: 'agent:read', write: 'agent:write' } as const;
export type AgentScope = (typeof AGENT_SCOPES)[keyof typeof AGENT_SCOPES];

/** The application user behind an access token and the token's scopes. */
export interface AgentIdentity {
  readonly userId: string;
  readonly scopes: readonly string[];
  /** OAuth client the token was issued to (informational). */
  readonly clientId?: string;
}

const Identity = z.object({
  userId: z.string().min(1).max(256),
  scopes: z.array(z.string().min(1).max(128)).max(64),
  clientId: z.string().max(256).optional(),
});

/** Validate what the app's token resolver returned (fail closed on anything odd). */
export function parseAgentIdentity(value: unknown): AgentIdentity {
  const parsed = Identity.safeParse(value);
  if (!parsed.success) throw new RuntimeError('SVC_BUCKET_CONFIG', 'resolveAgentToken must return { userId, scopes } or null.');
  return parsed.data;
}

/** Throw SVC_BUCKET_FORBIDDEN unless the identity holds `scope`. */
export function requireScope(identity: AgentIdentity, scope: AgentScope): void {
  if (!identity.scopes.includes(scope)) throw new RuntimeError('SVC_BUCKET_FORBIDDEN', `This tool needs the OAuth scope ${scope}.`);
}

/** Whether the identity holds any agent scope at all. */
export function hasAgentScope(identity: AgentIdentity): boolean {
  return identity.scopes.includes(AGENT_SCOPES.read) || identity.scopes.includes(AGENT_SCOPES.write);
}
