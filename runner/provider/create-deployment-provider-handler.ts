// Provider side of the HTTP bridge: authenticates, bounds and re-verifies every request, then calls the
// provider. Success is 204; anything else is a stable generic error, and only `onError` sees exceptions.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeArtifact } from '../../src/artifacts/index.js';
import { errorCodes, type ErrorCode } from '../../src/core/error-codes/index.js';
import { SvcError } from '../../src/core/errors.js';
import {
  BRIDGE_CANARY_PATH,
  BRIDGE_MEDIA_TYPE,
  BRIDGE_PATH,
  BRIDGE_ROLLBACK_PATH,
  BRIDGE_RUNNING_PATH,
  checkBridgeToken,
  parseEnvelope,
  parseRollbackHeaders,
} from './bridge-protocol.js';
import { DEPLOY_OUTCOME_CODES, runReconcile, type DeploymentProvider, type ReconcileRequest, type RollbackIntent } from './provider-contract.js';

export interface DeploymentProviderHandlerOptions {
  /** The provider requests are handed to (wrap it with `fencedProvider` for rules 1–2). */
  provider: DeploymentProvider;
  /** Bridge bearer token (32–512 characters), separate from every other credential. */
  token: string;
  /** Largest accepted artifact body in bytes. */
  maxArtifactBytes: number;
  /** The only place provider exceptions (and unexpected handler errors) go. */
  onError?: (error: unknown) => void;
}

/** A Node `request` listener serving `POST /v1/svc/reconcile`, `/v1/svc/rollback`, `/v1/svc/canary` and `GET /v1/svc/running`. */
export type DeploymentProviderHandler = (req: IncomingMessage, res: ServerResponse) => void;

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** Build the bridge handler; mount it with `http.createServer(handler)` (or an HTTPS server off loopback). */
export function createDeploymentProviderHandler(options: DeploymentProviderHandlerOptions): DeploymentProviderHandler {
  const expected = digest(checkBridgeToken(options.token));
  if (!Number.isSafeInteger(options.maxArtifactBytes) || options.maxArtifactBytes <= 0)
    throw new SvcError('SVC_RUNNER_CONFIG', 'maxArtifactBytes must be a positive integer');
  const onError = options.onError ?? (() => undefined);
  return (req, res) => {
    handle(req, res).catch((error: unknown) => {
      onError(error);
      send(res, 500, 'SVC_INTERNAL');
    });
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const running = req.url === BRIDGE_RUNNING_PATH;
    const rollbackPath = req.url === BRIDGE_ROLLBACK_PATH;
    const canaryPath = req.url === BRIDGE_CANARY_PATH;
    if (req.url !== BRIDGE_PATH && !running && !rollbackPath && !canaryPath) return reject(req, res, 404, 'SVC_NOT_FOUND');
    if (req.method !== (running ? 'GET' : 'POST')) return reject(req, res, 405, 'SVC_METHOD_NOT_ALLOWED');
    const auth = req.headers.authorization ?? '';
    const presented = auth.startsWith('Bearer ') ? auth.slice(7) : '';
    if (!timingSafeEqual(digest(presented), expected)) return reject(req, res, 401, 'SVC_PROVIDER_REJECTED');
    // Not for browsers: anything a browser would attach is refused.
    if (req.headers.origin !== undefined || req.headers.cookie !== undefined) return reject(req, res, 403, 'SVC_PROVIDER_REJECTED');
    if (running) return sendRunning(req, res);
    let envelope;
    let rollback: RollbackIntent | null;
    try {
      envelope = parseEnvelope(req.headers);
      rollback = parseRollbackHeaders(req.headers);
    } catch {
      return reject(req, res, 400, 'SVC_PROVIDER_REJECTED');
    }
    // A rollback travels on its own path only, and always with its headers (a running generation).
    if (rollbackPath !== (rollback !== null) || (rollback !== null && envelope.state !== 'running')) return reject(req, res, 400, 'SVC_PROVIDER_REJECTED');
    // A canary stages a running release, never with rollback headers (those are refused above).
    if (canaryPath && envelope.state !== 'running') return reject(req, res, 400, 'SVC_PROVIDER_REJECTED');
    const declared = req.headers['content-length'] === undefined ? null : Number(req.headers['content-length']);
    let body: Buffer | null = null;
    if (envelope.state === 'running') {
      if ((req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase() !== BRIDGE_MEDIA_TYPE)
        return reject(req, res, 415, 'SVC_UNSUPPORTED_MEDIA_TYPE');
      if (declared !== null && !(declared <= options.maxArtifactBytes)) return reject(req, res, 413, 'SVC_PAYLOAD_TOO_LARGE');
      body = await readBounded(req, options.maxArtifactBytes);
      if (body === null) return reject(req, res, 413, 'SVC_PAYLOAD_TOO_LARGE');
    } else {
      const rest = await readBounded(req, 0);
      if (rest === null || (declared !== null && declared !== 0)) return reject(req, res, 400, 'SVC_PROVIDER_REJECTED');
    }

    const abort = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    let artifact: ReconcileRequest['artifact'] = null;
    if (body !== null) {
      try {
        const decoded = await decodeArtifact(body, {
          expectedDigest: envelope.sha256!,
          limits: { maxRequestBytes: options.maxArtifactBytes, maxGzipBytes: options.maxArtifactBytes },
        });
        artifact = { bytes: body, sha256: decoded.digest, decoded };
      } catch (error) {
        const code = error instanceof SvcError && error.code.startsWith('SVC_ARTIFACT_') ? error.code : 'SVC_ARTIFACT_MALFORMED';
        return send(res, code === 'SVC_ARTIFACT_REQUEST_TOO_LARGE' || code === 'SVC_ARTIFACT_TOO_LARGE' ? 413 : 422, code);
      }
    }
    const request: ReconcileRequest = {
      operation: { projectId: envelope.projectId, id: envelope.operationId, fence: envelope.fence, attempt: envelope.attempt },
      desired: { generation: envelope.generation, state: envelope.state, releaseId: envelope.releaseId },
      artifact,
      signal: abort.signal,
      ...(rollback ? { rollback } : {}),
      ...(canaryPath ? { canary: true as const } : {}),
    };
    try {
      await runReconcile(options.provider, request, onError);
    } catch (error) {
      const code = error instanceof SvcError ? error.code : 'SVC_PROVIDER_FAILED';
      if (code === 'SVC_PROVIDER_STALE_FENCE') return send(res, 409, code);
      if (code === 'SVC_VALIDATION' || code === 'SVC_ARTIFACT_DIGEST_MISMATCH') return send(res, 400, 'SVC_PROVIDER_REJECTED');
      if (code === 'SVC_PROVIDER_ABORTED' || code === 'SVC_PROVIDER_FENCE_UNRESOLVED') return send(res, 503, code);
      // What went wrong with the deploy itself (health, migrations, restore): final, with its stable code.
      if (DEPLOY_OUTCOME_CODES.has(code)) return send(res, 422, code as ErrorCode);
      return send(res, 500, 'SVC_PROVIDER_FAILED');
    }
    res.writeHead(204, { 'cache-control': 'no-store' });
    res.end();
  }

  /** `GET /v1/svc/running`: what the provider runs (generation, release, state, app address) per project. */
  async function sendRunning(req: IncomingMessage, res: ServerResponse): Promise<void> {
    req.resume();
    if (!options.provider.running) return send(res, 404, 'SVC_NOT_FOUND');
    let projects;
    try {
      projects = await options.provider.running();
    } catch (error) {
      onError(error);
      return send(res, 500, 'SVC_PROVIDER_FAILED');
    }
    const body = JSON.stringify({
      projects: projects.map((p) => ({
        projectId: p.projectId,
        generation: p.generation,
        state: p.state,
        releaseId: p.releaseId,
        upstream: p.upstream,
        ...(p.canary ? { canary: { generation: p.canary.generation, releaseId: p.canary.releaseId, upstream: p.canary.upstream } } : {}),
      })),
    });
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
    res.end(body);
  }
}

/** Read the whole body unless it exceeds `max` bytes (then null, and the rest is discarded). */
function readBounded(req: IncomingMessage, max: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) over = true;
      if (!over) chunks.push(chunk);
    });
    req.once('end', () => resolve(over ? null : Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/** Refuse without reading a body we will not use (the connection is closed after the response). */
function reject(req: IncomingMessage, res: ServerResponse, status: number, code: ErrorCode): void {
  req.resume();
  res.setHeader('connection', 'close');
  send(res, status, code);
}

function send(res: ServerResponse, status: number, code: ErrorCode): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify({ error: { code, message: errorCodes[code]?.summary ?? 'Error' } });
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
  res.end(body);
}
