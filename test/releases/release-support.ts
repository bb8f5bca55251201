// Shared helpers for release tests: fixture apps built and packed once, a real control plane on a
// temp data dir (real clock, real processes), a signed-in owner and a project, upload/rollback calls.
import { randomUUID } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildTree } from '../../cli/build-tree.js';
import { packArtifact, readDeployConfig, type DeployConfig } from '../../src/artifacts/index.js';
import { testPlatformConfig } from '../../src/core/config.js';
import { createLogger } from '../../src/core/logger.js';
import { buildControlPlane, type ControlPlane } from '../../src/platform.js';
import { createProject, register, type Browser } from '../platform/harness.js';

export const ROOT = join(import.meta.dirname, '..', '..');

export interface Artifact {
  bytes: Buffer;
  digest: string;
}

/** Copy a fixture app to `dir`, optionally change it, build it and pack it. */
export async function packFixture(
  app: string,
  dir: string,
  change?: (appDir: string, config: DeployConfig) => Promise<DeployConfig | void>,
): Promise<Artifact> {
  const appDir = join(dir, `${app}-${randomUUID().slice(0, 8)}`);
  await cp(join(ROOT, 'fixtures', 'apps', app), appDir, { recursive: true, filter: (src) => !/[/\\](dist|\.svc)$/.test(src) });
  await buildTree(join(appDir, 'src'), join(appDir, 'dist'));
  let config = await readDeployConfig(appDir);
  if (change) config = (await change(appDir, config)) ?? config;
  const packed = await packArtifact(appDir, { config });
  return { bytes: packed.bytes, digest: packed.digest };
}

export interface Plane {
  plane: ControlPlane;
  app: FastifyInstance;
  dataDir: string;
  owner: Browser;
  project: { id: string; slug: string; organizationId: string };
  upload(artifact: Artifact, options?: { key?: string; headers?: Record<string, string>; wait?: boolean; body?: Buffer }): Promise<LightMyRequestResponse>;
  api(method: 'GET' | 'POST', url: string, payload?: unknown): Promise<LightMyRequestResponse>;
  /** `http://127.0.0.1:<port>` of the running active app. */
  appUrl(): string;
  close(): Promise<void>;
}

/** A control plane on `dataDir` (fresh temp dir by default) with an owner and one project. */
export async function startPlane(
  options: { env?: Record<string, string>; dataDir?: string; reuse?: { owner: Browser; project: Plane['project'] } } = {},
): Promise<Plane> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'svc-releases-')));
  const config = testPlatformConfig({ dataDir, publicUrl: 'http://127.0.0.1:7070', logLevel: 'silent', env: { ...options.env } });
  const plane = await buildControlPlane({ config, logger: createLogger({ level: 'silent' }) });
  const app = plane.app;
  const owner = options.reuse?.owner ?? (await register(app, `owner-${randomUUID().slice(0, 6)}@example.com`));
  const project = options.reuse?.project ?? (await createProject(app, owner, { name: 'Shop', slug: `shop-${randomUUID().slice(0, 6)}` }));
  const api = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    app.inject({ method, url, headers: owner.headers(), ...(payload === undefined ? {} : { payload: payload as object }) });
  return {
    plane,
    app,
    dataDir,
    owner,
    project,
    api,
    upload: (artifact, o = {}) =>
      app.inject({
        method: 'POST',
        url: `/api/projects/${project.id}/releases${o.wait === false ? '?wait=false' : ''}`,
        headers: owner.headers({
          'content-type': 'application/vnd.svc.deploy+gzip',
          'x-svc-artifact-digest': artifact.digest,
          'idempotency-key': o.key ?? `key-${randomUUID()}`,
          ...o.headers,
        }),
        payload: o.body ?? artifact.bytes,
      }),
    appUrl() {
      const running = plane.releases.current(project.id);
      if (!running) throw new Error('no running app');
      return `http://${running.host}:${running.port}`;
    },
    close: () => plane.close(),
  };
}

/** Remove a data dir (release directories are read-only). */
export async function removeDataDir(dir: string): Promise<void> {
  const { execFileSync } = await import('node:child_process');
  execFileSync('chmod', ['-R', 'u+w', dir]);
  await rm(dir, { recursive: true, force: true });
}

/** Poll until `check` returns a truthy value (bounded). */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 15_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as NonNullable<T>;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
