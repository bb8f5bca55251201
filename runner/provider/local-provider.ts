// A provider that converges projects on this host through an AppRunner (the container runner for
// mutually untrusted deployers; the process runner only for trusted ones). Stages each release in its
// own directory, health-checks the candidate, switches the durable "active" pointer atomically, then
// drains the old app. Data lives outside releases; secrets come from a provider-side resolver.
import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { extractArtifact } from '../../src/artifacts/index.js';
import { atomicWriteFileSync } from '../../src/core/atomic-write.js';
import { SvcError } from '../../src/core/errors.js';
import type { AppRunner, RunningApp } from '../app-runner.js';
import { checkHealth } from '../health-check.js';
import { idSchema, type DeploymentProvider, type ReconcileRequest } from './provider-contract.js';

export interface LocalProviderOptions {
  runner: AppRunner;
  /** Root holding `<projectId>/releases/<releaseId>`, `<projectId>/data` and `<projectId>/active.json`. */
  rootDir: string;
  /** Provider-side, project-scoped secret store (contract rule 6). */
  secrets?: (projectId: string) => Promise<Record<string, string>>;
  /** Drain grace for the previous app (default 10 s). */
  drainMs?: number;
}

/** The durable ingress pointer of one project. */
export interface ActivePointer {
  generation: number;
  releaseId: string | null;
  host: string | null;
  port: number | null;
  /** The release active before this one (kept for rollback and never garbage-collected). */
  previousReleaseId: string | null;
}

/** A local provider plus what tests and operators read from it. */
export interface LocalProvider extends DeploymentProvider {
  /** Where the project's active release is reachable, from the durable pointer. */
  active(projectId: string): ActivePointer | null;
  /** Stop every app this provider started (shutdown). */
  close(): Promise<void>;
}

/** Create the local provider. */
export function createLocalProvider(options: LocalProviderOptions): LocalProvider {
  const apps = new Map<string, RunningApp>();
  const projectDir = (projectId: string): string => join(options.rootDir, idSchema.parse(projectId));
  const pointerPath = (projectId: string): string => join(projectDir(projectId), 'active.json');

  const active = (projectId: string): ActivePointer | null => {
    try {
      return JSON.parse(readFileSync(pointerPath(projectId), 'utf8')) as ActivePointer;
    } catch {
      return null;
    }
  };

  async function stage(request: ReconcileRequest): Promise<string> {
    const releasesDir = join(projectDir(request.operation.projectId), 'releases');
    const releaseDir = join(releasesDir, request.desired.releaseId!);
    // Releases are immutable: an existing directory is reused (never overwritten in place).
    if (existsSync(releaseDir)) return releaseDir;
    await mkdir(releasesDir, { recursive: true });
    const staging = join(releasesDir, `.staging-${request.desired.releaseId}-${request.operation.fence}`);
    rmSync(staging, { recursive: true, force: true });
    await extractArtifact(request.artifact!.decoded, staging);
    renameSync(staging, releaseDir);
    return releaseDir;
  }

  async function run(request: ReconcileRequest): Promise<void> {
    const projectId = request.operation.projectId;
    const current = active(projectId);
    const currentApp = apps.get(projectId);
    if (current?.releaseId === request.desired.releaseId && currentApp && !currentApp.exited) {
      atomicWriteFileSync(pointerPath(projectId), JSON.stringify({ ...current, generation: request.desired.generation }));
      return;
    }
    const releaseDir = await stage(request);
    const config = request.artifact!.decoded.config;
    const dataDir = join(projectDir(projectId), 'data');
    await mkdir(dataDir, { recursive: true });
    const candidate = await options.runner.start({
      projectId,
      releaseId: request.desired.releaseId!,
      releaseDir,
      entry: config.entry,
      dataDir,
      databasePath: join(dataDir, config.database?.path ?? 'app.db'),
      env: config.env ?? {},
      secrets: (await options.secrets?.(projectId)) ?? {},
    });
    const health = await checkHealth({ host: candidate.host, port: candidate.port, path: config.health.path, timeoutMs: config.health.timeoutMs, exited: candidate.wait(), signal: request.signal });
    if (!health.ok) {
      await candidate.stop({ graceMs: 2000 });
      if (health.reason === 'aborted' || request.signal.aborted) throw new SvcError('SVC_PROVIDER_ABORTED', 'Aborted while the candidate started');
      throw new SvcError('SVC_PROVIDER_FAILED', `Candidate health check failed (${health.reason})`);
    }
    // Switch: the pointer is the ingress; one atomic rename moves it.
    atomicWriteFileSync(
      pointerPath(projectId),
      JSON.stringify({ generation: request.desired.generation, releaseId: request.desired.releaseId, host: candidate.host, port: candidate.port, previousReleaseId: current?.releaseId ?? null } satisfies ActivePointer),
    );
    apps.set(projectId, candidate);
    if (currentApp && currentApp !== candidate) await currentApp.stop({ graceMs: options.drainMs ?? 10_000 });
    collectReleases(projectId);
  }

  async function stop(request: ReconcileRequest): Promise<void> {
    const projectId = request.operation.projectId;
    const current = active(projectId);
    await apps.get(projectId)?.stop({ graceMs: options.drainMs ?? 10_000 });
    apps.delete(projectId);
    await mkdir(projectDir(projectId), { recursive: true });
    atomicWriteFileSync(pointerPath(projectId), JSON.stringify({ generation: request.desired.generation, releaseId: null, host: null, port: null, previousReleaseId: current?.releaseId ?? current?.previousReleaseId ?? null } satisfies ActivePointer));
  }

  /** Rule 9: remove only releases referenced by neither the active nor the rollback pointer. */
  function collectReleases(projectId: string): void {
    const pointer = active(projectId);
    const keep = new Set([pointer?.releaseId, pointer?.previousReleaseId].filter((id): id is string => typeof id === 'string'));
    const releasesDir = join(projectDir(projectId), 'releases');
    for (const name of readdirSync(releasesDir)) if (!name.startsWith('.') && !keep.has(name)) rmSync(join(releasesDir, name), { recursive: true, force: true });
  }

  return {
    kind: `local-${options.runner.kind}`,
    active,
    async reconcile(request: ReconcileRequest): Promise<void> {
      if (request.desired.state === 'running') await run(request);
      else await stop(request);
    },
    async close(): Promise<void> {
      for (const app of apps.values()) await app.stop({ graceMs: 2000 });
      apps.clear();
    },
  };
}
