// Upload (steps 2–3 of docs/releases.md and the checks before step 4): idempotency, the project lock, streaming
// verification with every limit, database.path and capacity checks, then the candidate row and the
// release transaction (a project placed on a runner node: the node plan of node-release-driver.ts).
// The same Idempotency-Key always yields the same release.
import { createHash } from 'node:crypto';
import { SvcError } from '../core/errors.js';
import { appendAudit } from '../audit/append-audit.js';
import { discardStagedArtifact, resolveLimits, stageArtifactOffThread, type StagedArtifact } from '../artifacts/index.js';
import { IDEMPOTENCY_KEY_PATTERN } from './contract.js';
import { databasePathOf, projectLayout } from './project-layout.js';
import { checkReleaseCapacity } from './release-limits.js';
import type { ReleaseDeps } from './release-deps.js';
import type { ReleasePlacementHooks } from './placement-hooks.js';
import { runReleaseTransaction, type TransactionSubject } from './release-transaction.js';
import { observe, type ReleaseSource } from './release-observer.js';
import { projectStorage } from './project-storage.js';
import { uploadStagingDir } from './upload-staging.js';
import { onNodeSettled, requestNodeDeploy } from './node-release-driver.js';
import { activeReleaseRow, findIdempotencyKey, getReleaseById, insertCandidate, releaseConfig, type ReleaseRow } from './release-store.js';

export interface UploadInput extends TransactionSubject {
  digest: string | undefined;
  idempotencyKey: string | undefined;
  body: AsyncIterable<Uint8Array>;
  /** The commit (and repository) a CI upload was built from. */
  source?: ReleaseSource | null;
}

export interface UploadResult {
  release: ReleaseRow;
  /** False when the idempotency key replayed an earlier upload. */
  created: boolean;
  /** Resolves with the final row once the transaction ended (already settled for replays of finished ones). */
  done: Promise<ReleaseRow>;
}

// Uploads are decoded in the process's decoder thread, which the first upload starts (it stops again when
// idle): an idle control plane does not hold a second V8 isolate.
/** In-flight uploads of this process by project + key, so a concurrent retry joins instead of racing. */
export class UploadTracker {
  private readonly byKey = new Map<string, { digest: string; release: Promise<ReleaseRow>; done: Promise<ReleaseRow> }>();
  private readonly byRelease = new Map<string, Promise<ReleaseRow>>();

  /** Join an in-flight upload with the same key. */
  get(projectId: string, key: string) {
    return this.byKey.get(`${projectId}\u0000${key}`);
  }
  /** The running transaction of a release, if any. */
  running(releaseId: string): Promise<ReleaseRow> | undefined {
    return this.byRelease.get(releaseId);
  }
  /** Every running transaction (shutdown waits for them). */
  all(): Promise<ReleaseRow>[] {
    return [...this.byRelease.values()];
  }
  track(projectId: string, key: string, digest: string, release: Promise<ReleaseRow>, done: Promise<ReleaseRow>): void {
    const id = `${projectId}\u0000${key}`;
    this.byKey.set(id, { digest, release, done });
    const cleanup = (): void => void this.byKey.delete(id);
    done.then(cleanup, cleanup);
  }
  trackRelease(releaseId: string, done: Promise<ReleaseRow>): void {
    this.byRelease.set(releaseId, done);
    const cleanup = (): void => void this.byRelease.delete(releaseId);
    done.then(cleanup, cleanup);
  }

  // Deploys awaiting their runner node answer at shutdown instead of holding it up.
  private stopWaiting!: () => void;
  private readonly stopped = new Promise<void>((resolve) => (this.stopWaiting = resolve));
  /** `wait`'s value, or null once the control plane shuts down. */
  untilShutdown<T>(wait: Promise<T>): Promise<T | null> {
    return Promise.race([wait, this.stopped.then(() => null)]);
  }
  /** Shutdown: answer every upload waiting for its node now. */
  releaseNodeWaiters(): void {
    this.stopWaiting();
  }
}

/** Check the upload headers: a lowercase hex SHA-256 digest and a well-formed idempotency key. */
export function checkUploadHeaders(digest: string | undefined, key: string | undefined): { digest: string; key: string } {
  if (!digest) throw new SvcError('SVC_ARTIFACT_DIGEST_REQUIRED', 'Send the artifact digest in X-Svc-Artifact-Digest.');
  if (!/^[0-9a-f]{64}$/.test(digest)) throw new SvcError('SVC_ARTIFACT_DIGEST_REQUIRED', 'X-Svc-Artifact-Digest must be a lowercase hex SHA-256.');
  if (!key || !IDEMPOTENCY_KEY_PATTERN.test(key))
    throw new SvcError('SVC_IDEMPOTENCY_KEY_REQUIRED', 'Send an Idempotency-Key header of 8–200 printable characters.');
  return { digest, key };
}

/** Accept an upload; see the file comment for the order of checks. */
export async function uploadRelease(deps: ReleaseDeps, tracker: UploadTracker, input: UploadInput): Promise<UploadResult> {
  const { digest, key } = checkUploadHeaders(input.digest, input.idempotencyKey);
  const projectId = input.project.id;
  const limits = resolveLimits(deps.artifactLimits);

  const replay = await findReplay(deps, tracker, projectId, key, digest, input.body, limits.maxRequestBytes);
  if (replay) return replay;

  let created!: (row: ReleaseRow) => void;
  let notCreated!: (error: unknown) => void;
  const releasePromise = new Promise<ReleaseRow>((resolve, reject) => ((created = resolve), (notCreated = reject)));
  releasePromise.catch(() => undefined);
  let finish!: (row: ReleaseRow) => void;
  let abort!: (error: unknown) => void;
  const done = new Promise<ReleaseRow>((resolve, reject) => ((finish = resolve), (abort = reject)));
  done.catch(() => undefined);
  tracker.track(projectId, key, digest, releasePromise, done);

  let lock;
  try {
    lock = await deps.locks.acquire(projectId, 'deploy', { waitMs: deps.settings.lockWaitMs });
  } catch (error) {
    notCreated(error);
    abort(error);
    throw error;
  }
  let candidate: ReleaseRow;
  let decoded: StagedArtifact | undefined;
  let placement: ReleasePlacementHooks | undefined; // set when the project is placed on a runner node
  const kept: Buffer[] = []; // a placed project's original bytes, for its node, or for a driver that keeps artifacts
  try {
    deps.failpoint('after-lock');
    // A retry that waited for the lock may find its key used by the upload it waited for.
    const again = findIdempotencyKey(deps.ctx, projectId, key);
    if (again) {
      if (again.digest !== digest) throw reused();
      const row = getReleaseById(deps.ctx, again.release_id)!;
      await drain(input.body, limits.maxRequestBytes);
      created(row);
      finish(row);
      await lock.release();
      return { release: row, created: false, done: Promise.resolve(row) };
    }
    // A superseded or older commit is refused before any work (never replaces a newer release).
    const source = input.source ?? null;
    const observer = deps.observer;
    if (observer?.admit && source) observe(deps.ctx.logger, () => observer.admit!(projectId, source), { rethrowSvcErrors: true });
    // A placed project's node needs the original bytes; the decoder bounds how many are read.
    placement = deps.placement?.isPlaced(projectId) ? deps.placement : undefined;
    // Decoded straight to disk (the project's scratch space) in a worker thread: a huge or bomb-like
    // artifact costs the control plane a few chunks of memory, never its whole contents, and its
    // inflating, hashing and writing never hold up the event loop (health, API, ingress).
    const staging = uploadStagingDir(projectLayout(deps.ctx.config.dataDir, projectId));
    const keep = placement !== undefined || deps.driver.keepsArtifacts === true;
    decoded = await stageArtifactOffThread(keep ? keepChunks(input.body, kept) : input.body, staging, { expectedDigest: digest, limits });
    const active = activeReleaseRow(deps.ctx, projectId);
    if (active && releaseConfig(active).database.path !== decoded.config.database.path) {
      throw new SvcError(
        'SVC_DATABASE_PATH_CHANGED',
        `database.path is "${decoded.config.database.path}", the active release uses "${releaseConfig(active).database.path}".`,
      );
    }
    const usage = await projectStorage(deps, projectId);
    const dbPath = databasePathOf(projectLayout(deps.ctx.config.dataDir, projectId), decoded.config.database.path);
    checkReleaseCapacity(
      usage,
      { bundleBytes: decoded.totalBytes, snapshotEstimateBytes: await deps.driver.runJob({ type: 'database-footprint', databasePath: dbPath }) },
      deps.settings,
    );
    const decodedConfig = decoded.config;
    const decodedDigest = decoded.digest;
    candidate = deps.ctx.db
      .transaction(() => {
        const row = insertCandidate(deps.ctx, {
          projectId,
          digest: decodedDigest,
          gzipBytes: decoded!.gzipBytes,
          bundleBytes: decoded!.totalBytes,
          fileCount: decoded!.files.length,
          config: decodedConfig,
          idempotencyKey: key,
          createdBy: { type: input.actor.type, id: input.actor.id, name: input.actor.name ?? null },
        });
        appendAudit(deps.ctx, {
          kind: 'release.create',
          organizationId: input.project.organizationId,
          projectId,
          actor: input.actor,
          metadata: { releaseId: row.id, digest: decodedDigest, gzipBytes: row.gzip_bytes, bundleBytes: row.bundle_bytes, fileCount: row.file_count },
        });
        if (observer?.onCandidate) observe(deps.ctx.logger, () => observer.onCandidate!({ id: row.id, projectId }, source));
        return row;
      })
      .immediate();
  } catch (error) {
    if (decoded) await discardStagedArtifact(decoded);
    notCreated(error);
    abort(error);
    if (lock) await lock.release().catch(() => undefined);
    throw error;
  }
  created(candidate);
  if (placement) {
    // Placed project: the node plan under the lock (keep the bytes, request the generation), then the
    // node's outcome awaited (bounded) and committed by the same commit effects; the upload answers
    // with the candidate meanwhile, as a local deploy does.
    const staged = decoded;
    const requested = (async (): Promise<number | null> => {
      try {
        return await requestNodeDeploy(deps, input, candidate, Buffer.concat(kept));
      } finally {
        await discardStagedArtifact(staged).catch((e: unknown) => deps.ctx.logger.warn({ err: e }, 'could not remove a staged upload')); // the node runs it from the kept bytes
        await lock.release().catch((e: unknown) => deps.ctx.logger.error({ err: e }, 'could not release the project lock'));
      }
    })();
    const running = requested.then((generation) => awaitNodeDeploy(deps, tracker, placement, candidate, generation));
    running.then(finish, abort);
    // A canary runs its stages under the lock: the upload answers with the candidate meanwhile, as a local deploy does.
    if (deps.canary && (input.canaryRequested || decoded.config.canary)) {
      tracker.trackRelease(candidate.id, done);
      return { release: candidate, created: true, done };
    }
    await requested.catch(() => undefined);
    return { release: getReleaseById(deps.ctx, candidate.id)!, created: true, done };
  }
  const running = runReleaseTransaction(deps, input, candidate, decoded, deps.driver.keepsArtifacts ? Buffer.concat(kept) : undefined).finally(() =>
    lock.release().catch((e: unknown) => deps.ctx.logger.error({ err: e }, 'could not release the project lock')),
  );
  running.then(finish, abort);
  tracker.trackRelease(candidate.id, done);
  return { release: candidate, created: true, done };
}

/** A placed project's candidate once its node's outcome is committed, or as it stands after the wait bound. */
async function awaitNodeDeploy(
  deps: ReleaseDeps,
  tracker: UploadTracker,
  placement: ReleasePlacementHooks,
  candidate: ReleaseRow,
  generation: number | null,
): Promise<ReleaseRow> {
  const outcome = generation === null ? null : await tracker.untilShutdown(placement.awaitGeneration(candidate.project_id, generation, placement.waitMs));
  if (outcome && generation !== null) await onNodeSettled(deps, { projectId: candidate.project_id, generation });
  return getReleaseById(deps.ctx, candidate.id)!;
}

/** An earlier upload with this key (finished or in flight), after checking the body is the same artifact. */
async function findReplay(
  deps: ReleaseDeps,
  tracker: UploadTracker,
  projectId: string,
  key: string,
  digest: string,
  body: AsyncIterable<Uint8Array>,
  maxBytes: number,
): Promise<UploadResult | null> {
  const stored = findIdempotencyKey(deps.ctx, projectId, key);
  if (stored) {
    if (stored.digest !== digest) throw reused();
    await verifySameBody(body, digest, maxBytes);
    const row = getReleaseById(deps.ctx, stored.release_id)!;
    return { release: row, created: false, done: tracker.running(row.id) ?? Promise.resolve(row) };
  }
  const inflight = tracker.get(projectId, key);
  if (!inflight) return null;
  if (inflight.digest !== digest) throw reused();
  await verifySameBody(body, digest, maxBytes);
  // The first upload may still be verifying; if it is rejected this retry is rejected the same way.
  const row = await inflight.release;
  return { release: row, created: false, done: inflight.done };
}

function reused(): SvcError {
  return new SvcError('SVC_IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used for a different artifact.');
}

/** Hash a replayed body (bounded) and reject it unless it is the artifact the key was first used for. */
async function verifySameBody(body: AsyncIterable<Uint8Array>, digest: string, maxBytes: number): Promise<void> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.length;
    if (bytes > maxBytes) throw new SvcError('SVC_ARTIFACT_REQUEST_TOO_LARGE', `The upload exceeds ${maxBytes} bytes`);
    hash.update(chunk);
  }
  if (hash.digest('hex') !== digest) throw reused();
}

/** Pass a body through while keeping its chunks (the consumer bounds the total). */
async function* keepChunks(body: AsyncIterable<Uint8Array>, kept: Buffer[]): AsyncIterable<Uint8Array> {
  for await (const chunk of body) {
    kept.push(Buffer.from(chunk));
    yield chunk;
  }
}

/** Read and discard a body (bounded). */
async function drain(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<void> {
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.length;
    if (bytes > maxBytes) return;
  }
}
