// Helpers for canary integration tests: a listening control plane (real ingress on port 0) with an owner
// and a project, fixture apps patched into candidates that fail, are slow or are fine, a bounded load
// generator through the ingress, and upload/report calls.
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import type { DeployConfig } from '../../src/artifacts/index.js';
import type { CanaryPolicy } from '../../src/canary/stage-policy.js';
import type { CanaryReportResponse } from '../../src/canary/contract.js';
import { testPlatformConfig } from '../../src/core/config.js';
import { createLogger } from '../../src/core/logger.js';
import { buildControlPlane, type ControlPlane, type ControlPlaneDeps } from '../../src/platform.js';
import { createProject, register, type Browser } from '../platform/harness.js';
import { eventually, packFixture, removeDataDir, type Artifact } from '../releases/release-support.js';

export { eventually, type Artifact };

/** Behaviour patched into the healthy fixture's `GET /` (the health route stays 200). */
export type Variant = 'ok' | 'fail' | 'slow' | { slowMs: number };

/** The healthy fixture as version `version`, with `variant` behaviour on `/` and an optional canary policy. */
export async function packCandidate(dir: string, version: number, variant: Variant, canary?: CanaryPolicy): Promise<Artifact> {
  return packFixture('healthy', dir, async (appDir, config): Promise<DeployConfig> => {
    const file = join(appDir, 'dist', 'server.mjs');
    let code = await readFile(file, 'utf8');
    code = code.replace('const VERSION = 1;', `const VERSION = ${version};`);
    const delay = variant === 'slow' ? 300 : typeof variant === 'object' ? variant.slowMs : 0;
    const patch =
      variant === 'fail'
        ? `if (pathname === '/') return send(res, 500, { app: 'healthy', version: VERSION, error: 'canary failure' });`
        : delay > 0
          ? `if (pathname === '/') await new Promise((r) => setTimeout(r, ${delay}));`
          : '';
    const anchor = "const { pathname } = new URL(req.url ?? '/', 'http://localhost');";
    if (!code.includes(anchor) || !code.includes(`const VERSION = ${version};`)) throw new Error('fixture changed: cannot patch it');
    code = code.replace(anchor, `${anchor}\n  ${patch}`);
    await writeFile(file, code);
    return canary ? { ...config, canary: { ...canary, maximumErrorRate: String(canary.maximumErrorRate) } } : config;
  });
}

export interface CanaryPlane {
  plane: ControlPlane;
  url: string;
  port: number;
  dir: string;
  owner: Browser;
  project: { id: string; slug: string; organizationId: string };
  /** Upload; `canary: true` sends the `svc deploy --canary` header. Returns the release id and HTTP status. */
  upload(artifact: Artifact, options?: { canary?: boolean; wait?: boolean }): Promise<{ status: number; releaseId: string; body: Record<string, unknown> }>;
  release(id: string): Promise<{ status: string; failure: { code: string } | null }>;
  activeReleaseId(): Promise<string | null>;
  report(): Promise<CanaryReportResponse>;
  close(): Promise<void>;
}

/** A listening control plane on a fresh data dir, with an owner and one project; `canary` adds a deployment-authority check to canary stages. */
export async function startCanaryPlane(options: Pick<ControlPlaneDeps, 'canary'> = {}): Promise<CanaryPlane> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-canary-'));
  const config = testPlatformConfig({ dataDir: join(dir, 'data'), publicUrl: 'http://127.0.0.1:7070', logLevel: 'silent' });
  const plane = await buildControlPlane({ config, logger: createLogger({ level: 'silent' }), ...options });
  await plane.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (plane.app.server.address() as AddressInfo).port;
  const app = plane.app;
  const owner = await register(app, `owner-${randomUUID().slice(0, 6)}@example.com`);
  const project = await createProject(app, owner, { name: 'Canary', slug: `can-${randomUUID().slice(0, 6)}` });
  const get = async <T>(url: string): Promise<T> => {
    const res = await app.inject({ method: 'GET', url, headers: owner.headers() });
    if (res.statusCode !== 200) throw new Error(`GET ${url} → ${res.statusCode} ${res.body}`);
    return res.json() as T;
  };
  return {
    plane,
    url: `http://127.0.0.1:${port}`,
    port,
    dir,
    owner,
    project,
    async upload(artifact, o = {}) {
      const res = await app.inject({
        method: 'POST',
        url: `/api/projects/${project.id}/releases${o.wait === false ? '?wait=false' : ''}`,
        headers: owner.headers({
          'content-type': 'application/vnd.svc.deploy+gzip',
          'x-svc-artifact-digest': artifact.digest,
          'idempotency-key': `key-${randomUUID()}`,
          ...(o.canary ? { 'x-svc-canary': '1' } : {}),
        }),
        payload: artifact.bytes,
      });
      const body = res.json() as { release?: { id: string } };
      if (!body.release) throw new Error(`upload → ${res.statusCode} ${res.body}`);
      return { status: res.statusCode, releaseId: body.release.id, body: body as Record<string, unknown> };
    },
    release: async (id) => (await get<{ release: { status: string; failure: { code: string } | null } }>(`/api/projects/${project.id}/releases/${id}`)).release,
    activeReleaseId: async () => (await get<{ activeReleaseId: string | null }>(`/api/projects/${project.id}/releases`)).activeReleaseId,
    report: () => get<CanaryReportResponse>(`/api/projects/${project.id}/canary`),
    async close() {
      await plane.close();
      await removeDataDir(dir);
    },
  };
}

export interface LoadResult {
  /** Responses per app version. */
  versions: Record<number, number>;
  /** Non-200 statuses and transport errors, with the version that answered (if known). */
  failures: { status: number; version: number | null; error?: string }[];
  completed: number;
}

/** Run `clients` sequential request loops on `/` through the ingress until `stop` resolves (bounded by `maxMs`). */
export function runLoad(url: string, host: string, options: { clients?: number; maxMs?: number; path?: string } = {}): { stop(): Promise<LoadResult> } {
  const agent = new Agent({ connections: options.clients ?? 4 });
  const result: LoadResult = { versions: {}, failures: [], completed: 0 };
  const deadline = Date.now() + (options.maxMs ?? 30_000);
  let stopped = false;
  const loop = async (): Promise<void> => {
    for (let i = 0; !stopped && Date.now() < deadline && i < 200_000; i++) {
      try {
        const res = await agent.request({ origin: url, path: options.path ?? '/', method: 'GET', headers: { host } });
        const body = (await res.body.json()) as { version?: number };
        const version = typeof body.version === 'number' ? body.version : null;
        if (res.statusCode === 200 && version !== null) result.versions[version] = (result.versions[version] ?? 0) + 1;
        else result.failures.push({ status: res.statusCode, version });
        result.completed++;
      } catch (error) {
        result.failures.push({ status: 0, version: null, error: (error as Error).message });
      }
    }
  };
  const loops = Array.from({ length: options.clients ?? 4 }, () => loop());
  return {
    async stop() {
      stopped = true;
      await Promise.all(loops);
      await agent.close();
      return result;
    },
  };
}

/** A short two-stage policy for tests. */
export function quickPolicy(over: Partial<CanaryPolicy> = {}): CanaryPolicy {
  return {
    stages: [
      { trafficPercent: 20, durationMs: 600, minimumSamples: 5 },
      { trafficPercent: 50, durationMs: 600, minimumSamples: 5 },
    ],
    maximumErrorRate: 0.05,
    maximumP95Ms: 250,
    ...over,
  };
}
