// The wire format of the provider HTTP bridge (pure): header names, bounds, and conversions between
// a reconcile request and headers. Header names are svc's own (docs/provider-bridge.md).
import { z } from 'zod';
import { SvcError } from '../../src/core/errors.js';
import { idSchema, type DesiredState, type RollbackIntent } from './provider-contract.js';

export const BRIDGE_PATH = '/v1/svc/reconcile';
/**
 * `POST`: a reconcile that rolls back (envelope plus the rollback headers). A path of its own, so a
 * provider that predates rollbacks answers 404 instead of running a data restore as a plain deploy.
 */
export const BRIDGE_ROLLBACK_PATH = '/v1/svc/rollback';
/**
 * `POST`: a reconcile that stages its release as a canary (the plain envelope; the path is the intent).
 * A path of its own, so a provider that predates canaries answers 404 instead of deploying the candidate.
 */
export const BRIDGE_CANARY_PATH = '/v1/svc/canary';
/** `GET`: what the provider runs per project (`{ projects: ProjectRunState[] }`). */
export const BRIDGE_RUNNING_PATH = '/v1/svc/running';
/** Largest `running` answer a client reads. */
export const MAX_RUNNING_BYTES = 4 * 1024 * 1024;
export const BRIDGE_MEDIA_TYPE = 'application/vnd.svc.deploy+gzip';
export const MIN_TOKEN_LENGTH = 32;
export const MAX_TOKEN_LENGTH = 512;

/** Bridge header names (lowercase, as Node presents them). */
export const bridgeHeaders = {
  project: 'svc-project-id',
  operation: 'svc-operation-id',
  fence: 'svc-fence',
  attempt: 'svc-attempt',
  generation: 'svc-generation',
  state: 'svc-desired-state',
  release: 'svc-release-id',
  sha256: 'svc-artifact-sha256',
  /** Rollback requests only: `code` or `restore` (restore-data). */
  rollback: 'svc-rollback',
  /** Rollback requests only: the release the control plane saw active, or `-` for none. */
  rollbackFrom: 'svc-rollback-from',
} as const;

/** The identifying part of a reconcile request as carried in headers. */
export interface BridgeEnvelope {
  projectId: string;
  operationId: string;
  fence: number;
  attempt: number;
  generation: number;
  state: DesiredState;
  releaseId: string | null;
  sha256: string | null;
}

const counter = z
  .string()
  .regex(/^(0|[1-9]\d{0,15})$/)
  .transform(Number)
  .pipe(z.number().int().max(Number.MAX_SAFE_INTEGER));
const envelopeSchema = z
  .object({
    projectId: idSchema,
    operationId: idSchema,
    fence: counter,
    attempt: z
      .string()
      .regex(/^[1-9]\d{0,3}$/)
      .transform(Number),
    generation: counter,
    state: z.enum(['running', 'stopped']),
    releaseId: idSchema.nullable(),
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .nullable(),
  })
  .refine((e) => (e.state === 'running' ? e.releaseId !== null && e.sha256 !== null : e.releaseId === null && e.sha256 === null));

/** Check a bearer token's length (32–512 characters, printable ASCII without spaces). */
export function checkBridgeToken(token: string): string {
  if (typeof token !== 'string' || token.length < MIN_TOKEN_LENGTH || token.length > MAX_TOKEN_LENGTH || !/^[\x21-\x7e]+$/.test(token)) {
    throw new SvcError('SVC_RUNNER_CONFIG', `The provider bridge token must be ${MIN_TOKEN_LENGTH} to ${MAX_TOKEN_LENGTH} printable characters`);
  }
  return token;
}

/** Headers for one delivery (the token is added by the caller). */
export function envelopeHeaders(e: BridgeEnvelope): Record<string, string> {
  const headers: Record<string, string> = {
    [bridgeHeaders.project]: e.projectId,
    [bridgeHeaders.operation]: e.operationId,
    [bridgeHeaders.fence]: String(e.fence),
    [bridgeHeaders.attempt]: String(e.attempt),
    [bridgeHeaders.generation]: String(e.generation),
    [bridgeHeaders.state]: e.state,
  };
  if (e.releaseId !== null) headers[bridgeHeaders.release] = e.releaseId;
  if (e.sha256 !== null) headers[bridgeHeaders.sha256] = e.sha256;
  return headers;
}

/** Parse and bound the envelope headers; throws SVC_PROVIDER_REJECTED on anything off-shape. */
export function parseEnvelope(headers: Readonly<Record<string, string | string[] | undefined>>): BridgeEnvelope {
  const one = (name: string): string | null => {
    const value = headers[name];
    if (Array.isArray(value)) return '\0';
    return value === undefined ? null : value;
  };
  const parsed = envelopeSchema.safeParse({
    projectId: one(bridgeHeaders.project),
    operationId: one(bridgeHeaders.operation),
    fence: one(bridgeHeaders.fence),
    attempt: one(bridgeHeaders.attempt),
    generation: one(bridgeHeaders.generation),
    state: one(bridgeHeaders.state),
    releaseId: one(bridgeHeaders.release),
    sha256: one(bridgeHeaders.sha256)?.toLowerCase() ?? null,
  });
  if (!parsed.success) throw new SvcError('SVC_PROVIDER_REJECTED', 'The bridge request headers are missing or invalid');
  return parsed.data;
}

/** The rollback headers of a request on BRIDGE_ROLLBACK_PATH. */
export function rollbackHeaders(intent: RollbackIntent): Record<string, string> {
  return { [bridgeHeaders.rollback]: intent.restoreData ? 'restore' : 'code', [bridgeHeaders.rollbackFrom]: intent.fromReleaseId ?? '-' };
}

/**
 * Parse the rollback headers: null when neither is present; throws SVC_PROVIDER_REJECTED when they are
 * partial or off-shape.
 */
export function parseRollbackHeaders(headers: Readonly<Record<string, string | string[] | undefined>>): RollbackIntent | null {
  const kind = headers[bridgeHeaders.rollback];
  const from = headers[bridgeHeaders.rollbackFrom];
  if (kind === undefined && from === undefined) return null;
  if (typeof kind !== 'string' || typeof from !== 'string' || (kind !== 'code' && kind !== 'restore'))
    throw new SvcError('SVC_PROVIDER_REJECTED', 'The rollback headers are missing or invalid');
  if (from !== '-' && !idSchema.safeParse(from).success) throw new SvcError('SVC_PROVIDER_REJECTED', 'The rollback headers are missing or invalid');
  return { restoreData: kind === 'restore', fromReleaseId: from === '-' ? null : from };
}

/** Whether a base URL's host is loopback (plain HTTP is allowed only there). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Validate the bridge base URL: https, or http on loopback; no credentials, query or fragment. */
export function checkBaseUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new SvcError('SVC_RUNNER_CONFIG', 'The provider bridge URL is not a valid URL');
  }
  if (url.username || url.password || url.search || url.hash)
    throw new SvcError('SVC_RUNNER_CONFIG', 'The provider bridge URL may not carry credentials, a query or a fragment');
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return url;
  throw new SvcError('SVC_RUNNER_CONFIG', 'The provider bridge requires HTTPS unless it is on loopback');
}

/** Statuses after which the same idempotent request is sent again. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

const upstreamSchema = z.strictObject({ host: z.string().min(1).max(253), port: z.number().int().min(1).max(65535) });
const generationSchema = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** The `running` answer of the bridge (validated by the client; addresses are the provider host's). */
export const runningAnswerSchema = z.strictObject({
  projects: z
    .array(
      z.strictObject({
        projectId: idSchema,
        generation: generationSchema,
        state: z.enum(['running', 'stopped']),
        releaseId: idSchema.nullable(),
        upstream: upstreamSchema.nullable(),
        /** Sent only while a canary is staged (so clients that predate it never see the field unasked). */
        canary: z.strictObject({ generation: generationSchema, releaseId: idSchema, upstream: upstreamSchema.nullable() }).optional(),
      }),
    )
    .max(100_000),
});
