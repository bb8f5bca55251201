// GET /api/projects/:id/metrics after real proxied requests: authorization and the numbers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pool } from 'undici';
import { metricsResponseSchema } from '../../src/ingress/contract.js';
import { createProject, ORIGIN, register, type Browser } from '../platform/harness.js';
import { startListeningPlane, startUpstream, type ListeningPlane, type UpstreamProcess } from './support.js';

let plane: ListeningPlane;
let upstream: UpstreamProcess;
let owner: Browser;
let project: { id: string; slug: string };

beforeAll(async () => {
  [plane, upstream] = await Promise.all([startListeningPlane({ publicUrl: ORIGIN, registration: 'public' }), startUpstream('M')]);
  owner = await register(plane.plane.app, 'owner@example.com');
  project = await createProject(plane.plane.app, owner, { name: 'Metrics App', slug: 'metrics-app' });
});

afterAll(async () => {
  await plane?.close();
  await upstream?.stop();
});

describe('GET /api/projects/:id/metrics', () => {
  it("answers 503 for a project without a release, then reports proxied traffic per window, svc's 503 apart from the app's 500", async () => {
    const client = new Pool(plane.url);
    const host = `${project.slug}.localhost:${plane.port}`;
    // Found lazily by slug: no release yet.
    const idle = await client.request({ path: '/', method: 'GET', headers: { host } });
    expect(idle.statusCode).toBe(503);
    const idleBytes = (await idle.body.arrayBuffer()).byteLength;

    await plane.plane.ingress.routes.switchUpstream(project.id, { host: '127.0.0.1', port: upstream.port }, 'rel_m1');
    let bytes = idleBytes;
    for (const path of ['/whoami', '/whoami', '/status/500', '/status/404', '/download?bytes=5000']) {
      const res = await client.request({ path, method: 'GET', headers: { host } });
      bytes += (await res.body.arrayBuffer()).byteLength;
    }
    await client.close();
    await new Promise((r) => setTimeout(r, 50));

    for (const window of ['1h', '24h', '7d', '30d'] as const) {
      const res = await plane.plane.app.inject({
        method: 'GET',
        url: `/api/projects/${project.slug}/metrics?window=${window}`,
        headers: { cookie: owner.cookie },
      });
      expect(res.statusCode, res.body).toBe(200);
      const body = metricsResponseSchema.parse(res.json());
      expect(body.window).toBe(window);
      expect(body.projectId).toBe(project.id);
      // The idle 503 is svc's own answer; only /status/500 is the app's error (rate over the 5 it answered).
      expect(body.totals).toMatchObject({ requests: 6, errors: 1, platform: 1, clientErrors: 1, bytes, errorRate: 1 / 5 });
      expect(body.totals.p95).not.toBeNull();
      expect(body.series.reduce((n, p) => n + p.requests, 0)).toBe(6);
      expect(body.series.reduce((n, p) => n + p.errors, 0)).toBe(1);
      expect(body.series.reduce((n, p) => n + p.platform, 0)).toBe(1);
    }
    const perRelease = await plane.plane.app.inject({
      method: 'GET',
      url: `/api/projects/${project.id}/metrics?releaseId=rel_m1`,
      headers: { cookie: owner.cookie },
    });
    expect(perRelease.json().totals).toMatchObject({ requests: 5, errors: 1, platform: 0 });
  });

  it('requires an authorized reader and a known window', async () => {
    expect((await plane.plane.app.inject({ method: 'GET', url: `/api/projects/${project.id}/metrics` })).statusCode).toBe(401);
    const stranger = await register(plane.plane.app, 'stranger@example.com');
    const denied = await plane.plane.app.inject({ method: 'GET', url: `/api/projects/${project.id}/metrics`, headers: { cookie: stranger.cookie } });
    expect(denied.statusCode).toBe(404);
    expect(denied.json().error.code).toBe('SVC_PROJECT_NOT_FOUND');
    const bad = await plane.plane.app.inject({ method: 'GET', url: `/api/projects/${project.id}/metrics?window=2h`, headers: { cookie: owner.cookie } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('SVC_VALIDATION');
  });
});
