// Who may call which node route: the platform admin (session with CSRF, or an account-wide admin
// token) for tokens and the node list; a registration token once for enrollment; a node credential
// for everything else. Node secrets carry their own prefixes, so they never pass as account tokens
// (which start with `svc_`), and account tokens never match a node credential hash.
import type { FastifyRequest } from 'fastify';
import type { ControlDb } from '../core/control-db.js';
import { SvcError } from '../core/errors.js';
import type { FeatureContext } from '../core/feature-context.js';
import { constantTimeEqual, generateSecret, sha256Hex } from '../core/token-hash.js';
import { authenticate, credentialPermissions, scopedProjectId, type Principal } from '../identity/index.js';
import { isPlatformAdmin } from '../ops/index.js';
import { nodeSecretSchema } from './contract.js';
import { findNodeByCredentialHash, type NodeRow } from './node-store.js';

/** Prefix of registration tokens (`svcr_…`). */
export const REGISTRATION_TOKEN_PREFIX = 'svcr_';
/** Prefix of node credentials (`svcn_…`). */
export const NODE_CREDENTIAL_PREFIX = 'svcn_';

/** A fresh registration token (256 random bits). */
export function newRegistrationToken(): string {
  return generateSecret(REGISTRATION_TOKEN_PREFIX);
}

/** A fresh node credential (256 random bits). */
export function newNodeCredential(): string {
  return generateSecret(NODE_CREDENTIAL_PREFIX);
}

/** The bearer secret of a request when it has the expected prefix and length, else null. */
export function bearerSecret(request: FastifyRequest, prefix: string): string | null {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  const secret = match?.[1];
  if (!secret || !secret.startsWith(prefix) || !nodeSecretSchema.safeParse(secret).success) return null;
  return secret;
}

/** The enrolled node behind `Authorization: Bearer <node credential>`; anything else is SVC_NODE_CREDENTIAL_INVALID. */
export function authenticateNode(db: ControlDb, request: FastifyRequest): NodeRow {
  const secret = bearerSecret(request, NODE_CREDENTIAL_PREFIX);
  if (secret === null) throw new SvcError('SVC_NODE_CREDENTIAL_INVALID');
  const hash = sha256Hex(secret);
  const node = findNodeByCredentialHash(db, hash);
  // The lookup is by hash (an index); the final comparison is constant-time anyway.
  if (!node || !constantTimeEqual(node.credential_hash, hash)) throw new SvcError('SVC_NODE_CREDENTIAL_INVALID');
  return node;
}

/**
 * The platform admin: a browser session (CSRF checked on mutations by `authenticate`) or an
 * account-wide bearer token of that admin carrying the `admin` permission.
 */
export function requireNodeAdmin(ctx: FeatureContext, request: FastifyRequest): Principal {
  const principal = authenticate(ctx, request);
  if (!isPlatformAdmin(ctx, principal.user.id)) throw new SvcError('SVC_PLATFORM_ADMIN_REQUIRED');
  if (scopedProjectId(principal) !== null) throw new SvcError('SVC_TOKEN_SCOPE', 'Node administration needs an account-wide session or token.');
  const permissions = credentialPermissions(principal);
  if (permissions !== null && !permissions.includes('admin'))
    throw new SvcError('SVC_FORBIDDEN', 'Node administration needs a token with the admin permission.');
  return principal;
}
