// The packaged control plane as the ops suites (monitor, drills) drive it: settings come from
// process.env (the monitor and drills read them there), alerts go to a webhook receiver on port 0,
// and one admin owns one project that receives real uploads. Each step is its own function, so a
// suite keeps what it started in its own variables and its afterEach can close whatever got that far.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { LightMyRequestResponse } from 'fastify';
import { testPlatformConfig } from '../../src/core/config.js';
import { createLogger } from '../../src/core/logger.js';
import { buildControlPlane, type ControlPlane } from '../../src/platform.js';
import { createProject, register, type Browser } from '../platform/harness.js';
import { removeDataDir, type Artifact } from '../releases/release-support.js';

/** A control plane on `dataDir`, with a clock a test may move forward. */
export function openOpsPlane(dataDir: string, clock?: { now: () => number }): Promise<ControlPlane> {
  return buildControlPlane({
    config: testPlatformConfig({ dataDir, publicUrl: 'http://127.0.0.1:7070', logLevel: 'silent' }),
    ...(clock ? { clock } : {}),
    logger: createLogger({ level: 'silent' }),
  });
}

/** The first account (the admin) and a project it owns. */
export async function adminWithProject(plane: ControlPlane): Promise<{ admin: Browser; project: Awaited<ReturnType<typeof createProject>> }> {
  const admin = await register(plane.app, 'admin@example.com');
  const project = await createProject(plane.app, admin, { name: 'Shop', slug: `shop-${randomUUID().slice(0, 6)}` });
  return { admin, project };
}

/** Upload `artifact` as the project's next release, as the CLI does; the route's answer. */
export function uploadRelease(plane: ControlPlane, admin: Browser, projectId: string, artifact: Artifact): Promise<LightMyRequestResponse> {
  return plane.app.inject({
    method: 'POST',
    url: `/api/projects/${projectId}/releases`,
    headers: admin.headers({
      'content-type': 'application/vnd.svc.deploy+gzip',
      'x-svc-artifact-digest': artifact.digest,
      'idempotency-key': `key-${randomUUID()}`,
    }),
    payload: artifact.bytes,
  });
}

/** Undo what a test started: the settings it put in process.env, the plane, the receiver, the data. */
export async function closeOpsPlatform(parts: { plane?: ControlPlane; server?: Server; dataDir?: string }, envNames: readonly string[]): Promise<void> {
  for (const name of envNames) delete process.env[name];
  await parts.plane?.close();
  await new Promise((r) => (parts.server ? parts.server.close(r) : r(undefined)));
  if (parts.dataDir) await removeDataDir(parts.dataDir);
}
