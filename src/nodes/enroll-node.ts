// Registration tokens and enrollment: a token is shown once, stored as its SHA-256 hash, expires, and
// is consumed in the same SQLite transaction that creates the node (so it can enroll exactly one).
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { appendAudit } from '../audit/append-audit.js';
import { SvcError } from '../core/errors.js';
import { isoTime } from '../core/feature-context.js';
import { sha256Hex } from '../core/token-hash.js';
import { actorOf, listMemberships, type Principal } from '../identity/index.js';
import type { createRegistrationTokenSchema, enrollRequestSchema } from './contract.js';
import { bearerSecret, newNodeCredential, newRegistrationToken, REGISTRATION_TOKEN_PREFIX } from './node-auth.js';
import { consumeRegistrationToken, findRegistrationToken, getNode, insertNode, insertRegistrationToken } from './node-store.js';
import type { NodesContext } from './nodes-context.js';

/** Create a one-time registration token for the platform admin; returns the raw token (shown once). */
export function createRegistrationToken(
  n: NodesContext,
  principal: Principal,
  input: z.infer<typeof createRegistrationTokenSchema>,
): { token: string; expiresAt: string } {
  const { ctx } = n;
  const token = newRegistrationToken();
  const now = ctx.clock.now();
  const expiresAt = now + input.expiresInMinutes * 60_000;
  // Enrollment has no organization of its own; its audit events go to the admin's first organization.
  const organizationId = listMemberships(ctx, principal.user.id)[0]?.id ?? null;
  ctx.db.transaction(() => {
    insertRegistrationToken(ctx.db, {
      token_hash: sha256Hex(token),
      created_by: principal.user.id,
      organization_id: organizationId,
      created_at: now,
      expires_at: expiresAt,
    });
    if (organizationId) appendAudit(ctx, { kind: 'node.token', organizationId, actor: actorOf(principal), metadata: { expiresAt: isoTime(expiresAt) } });
  })();
  return { token, expiresAt: isoTime(expiresAt) };
}

/** Enroll a node with `Authorization: Bearer <registration token>`; returns its credential (shown once). */
export function enrollNode(n: NodesContext, request: FastifyRequest, input: z.infer<typeof enrollRequestSchema>): { nodeId: string; credential: string } {
  const { ctx } = n;
  const secret = bearerSecret(request, REGISTRATION_TOKEN_PREFIX);
  if (secret === null) throw new SvcError('SVC_NODE_TOKEN_INVALID');
  const hash = sha256Hex(secret);
  const credential = newNodeCredential();
  return ctx.db
    .transaction(() => {
      const now = ctx.clock.now();
      const row = findRegistrationToken(ctx.db, hash);
      if (!row) throw new SvcError('SVC_NODE_TOKEN_INVALID');
      if (row.used_at !== null) throw new SvcError('SVC_NODE_TOKEN_USED');
      if (now >= row.expires_at) throw new SvcError('SVC_NODE_TOKEN_EXPIRED');
      if (getNode(ctx.db, input.nodeId)) throw new SvcError('SVC_NODE_ALREADY_ENROLLED');
      if (!consumeRegistrationToken(ctx.db, hash, input.nodeId, now)) throw new SvcError('SVC_NODE_TOKEN_USED');
      insertNode(ctx.db, {
        id: input.nodeId,
        credential_hash: sha256Hex(credential),
        region: input.region,
        capacity: input.capacity,
        concurrency: input.concurrency,
        labels: JSON.stringify(input.labels),
        draining: 0,
        enrolled_at: now,
        last_seen_at: now,
      });
      if (row.organization_id) {
        appendAudit(ctx, {
          kind: 'node.enroll',
          organizationId: row.organization_id,
          actor: { type: 'system', id: input.nodeId, name: `node ${input.nodeId}` },
          metadata: { nodeId: input.nodeId, region: input.region, capacity: input.capacity, concurrency: input.concurrency },
        });
      }
      return { nodeId: input.nodeId, credential };
    })
    .immediate();
}
