// Previews through the real control plane, real app processes and the in-process ingress: a pull
// request's preview is a project of its own served at pr-<n>--<slug>, released only from the pull
// request's head commit, with its own (empty or copied) data and the preview secrets scope; the live
// limit, forks, tear-down, and idle stop with wake on the next request (no request fails).
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PullRequestInput } from '../../src/previews/index.js';
import { eventually, packFixture, removeDataDir, startPlane, type Artifact, type Plane } from '../releases/release-support.js';

let work: string;
let plane: Plane;
let port: number;
let healthy: Artifact;
const SHA = { a: 'a'.repeat(40), b: 'b'.repeat(40), c: 'c'.repeat(40) };

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'svc-previews-'));
  healthy = await packFixture('healthy', work);
  plane = await startPlane({ env: { SVC_PREVIEW_LIMIT: '3', SVC_PREVIEW_IDLE_MS: '600000' } });
  await plane.app.listen({ host: '127.0.0.1', port: 0 });
  port = (plane.app.server.address() as AddressInfo).port;
}, 120_000);
afterAll(async () => {
  await plane?.close();
  if (plane) await removeDataDir(plane.dataDir);
  if (work) await removeDataDir(work);
});

const pr = (number: number, headSha: string, extra: Partial<PullRequestInput> = {}): PullRequestInput => ({
  parentProjectId: plane.project.id,
  number,
  title: `Change ${number}`,
  author: 'octocat',
  headRef: `feature-${number}`,
  headSha,
  fork: false,
  ...extra,
});

function uploadPreview(number: number, sha: string, artifact: Artifact = healthy) {
  return plane.app.inject({
    method: 'POST',
    url: `/api/projects/${plane.project.slug}/previews/${number}/releases`,
    headers: plane.owner.headers({
      'content-type': 'application/vnd.svc.deploy+gzip',
      'x-svc-artifact-digest': artifact.digest,
      'idempotency-key': `preview-${number}-${sha}-${Math.random()}`,
      'x-svc-commit-sha': sha,
    }),
    payload: artifact.bytes,
  });
}

async function viaIngress(slug: string, path: string): Promise<{ status: number; body: string }> {
  const response = await request(`http://127.0.0.1:${port}${path}`, { headers: { host: `${slug}.localhost:${port}` } });
  return { status: response.statusCode, body: await response.body.text() };
}

const api = (method: 'GET' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
  plane.app.inject({ method, url, headers: plane.owner.headers(), ...(payload === undefined ? {} : { payload: payload as object }) });

describe('previews', () => {
  it('creates a preview per pull request, released from its head commit only, served at pr-<n>--<slug>; production untouched', async () => {
    const lifecycle = plane.plane.previews.lifecycle;
    const opened = await lifecycle.open(pr(7, SHA.a));
    expect(opened).toMatchObject({ kind: 'ready', created: true });
    const slug = `pr-7--${plane.project.slug}`;
    expect(opened.kind === 'ready' && opened.url).toBe(`http://${slug}.localhost:7070`);
    // Before an upload the host answers, but with no release to serve.
    expect((await viaIngress(slug, '/')).status).toBe(503);

    const wrong = await uploadPreview(7, SHA.b);
    expect(wrong.statusCode, wrong.body).toBe(409);
    expect(wrong.json().error.code).toBe('SVC_PREVIEW_COMMIT_SUPERSEDED');
    const missing = await uploadPreview(99, SHA.a);
    expect(missing.json().error.code).toBe('SVC_PREVIEW_NOT_FOUND');

    const res = await uploadPreview(7, SHA.a);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ release: { status: 'active' }, url: `http://${slug}.localhost:7070` });
    const served = await viaIngress(slug, '/');
    expect(served.status).toBe(200);
    expect(JSON.parse(served.body)).toMatchObject({ app: 'healthy' });
    // Production has no release: its host still has nothing to serve.
    expect((await viaIngress(plane.project.slug, '/')).status).toBe(503);
    expect(plane.plane.releases.current(plane.project.id)).toBeNull();

    // A new push moves the head: the old head's upload is refused, the new one replaces the preview.
    expect(await lifecycle.open(pr(7, SHA.b))).toMatchObject({ kind: 'ready', created: false });
    const stale = await uploadPreview(7, SHA.a);
    expect(stale.json().error.code).toBe('SVC_PREVIEW_COMMIT_SUPERSEDED');
    const replaced = await uploadPreview(7, SHA.b);
    expect(replaced.statusCode, replaced.body).toBe(201);
    const list = await api('GET', `/api/projects/${plane.project.id}/previews`);
    expect(list.statusCode, list.body).toBe(200);
    // No custom domain on a preview: it lives only as long as its pull request.
    const domain = await plane.app.inject({
      method: 'POST',
      url: `/api/projects/${slug}/domains`,
      headers: plane.owner.headers(),
      payload: { domain: 'preview.example.com' },
    });
    expect(domain.json().error.code).toBe('SVC_DOMAIN_PREVIEW');
    // Previews are listed under their production project, not among the projects.
    const projects = (await api('GET', '/api/projects')).json() as { projects: { slug: string }[] };
    expect(projects.projects.map((p) => p.slug)).toEqual([plane.project.slug]);
    expect(list.json()).toMatchObject({
      limit: 3,
      idleStopMs: 600_000,
      previews: [{ number: 7, slug, state: 'active', headSha: SHA.b, releaseCommitSha: SHA.b, title: 'Change 7', dataSource: 'empty' }],
    });
  }, 120_000);

  it('gives a preview its own empty database by default, or a copy of production when the project opts in', async () => {
    const prod = await plane.upload(healthy, { headers: { 'x-svc-commit-sha': SHA.c } });
    expect(prod.statusCode, prod.body).toBe(201);
    const note = await request(`http://127.0.0.1:${port}/notes`, {
      method: 'POST',
      headers: { host: `${plane.project.slug}.localhost:${port}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'a real customer note' }),
    });
    expect(note.statusCode).toBe(201);
    await note.body.dump();
    expect(JSON.parse((await viaIngress(`pr-7--${plane.project.slug}`, '/notes')).body)).toEqual({ notes: [] });

    const refused = await plane.app.inject({
      method: 'PUT',
      url: `/api/projects/pr-7--${plane.project.slug}/preview-settings`,
      headers: plane.owner.headers(),
      payload: { data: 'production' },
    });
    expect(refused.json().error.code).toBe('SVC_PREVIEW_NOT_PREVIEW');
    const set = await api('PUT', `/api/projects/${plane.project.id}/preview-settings`, { data: 'production' });
    expect(set.statusCode, set.body).toBe(200);
    expect(await plane.plane.previews.lifecycle.open(pr(8, SHA.a))).toMatchObject({ kind: 'ready', created: true });
    const up = await uploadPreview(8, SHA.a);
    expect(up.statusCode, up.body).toBe(201);
    expect(JSON.parse((await viaIngress(`pr-8--${plane.project.slug}`, '/notes')).body)).toMatchObject({ notes: [{ text: 'a real customer note' }] });
    expect((await api('PUT', `/api/projects/${plane.project.id}/preview-settings`, { data: 'empty' })).statusCode).toBe(200);
  }, 120_000);

  it('gives previews the preview secrets scope and never production secrets', async () => {
    const put = (name: string, value: string, scope?: string) =>
      api('PUT', `/api/projects/${plane.project.id}/secrets/${name}${scope ? `?scope=${scope}` : ''}`, { value });
    expect((await put('API_KEY', 'production-key')).statusCode).toBeLessThan(300);
    expect((await put('ONLY_PRODUCTION', 'production-only')).statusCode).toBeLessThan(300);
    expect((await put('API_KEY', 'preview-key', 'preview')).statusCode).toBeLessThan(300);
    // Secrets apply on the next start: release both again.
    expect((await plane.upload(healthy, { headers: { 'x-svc-commit-sha': SHA.c } })).statusCode).toBeLessThan(300);
    expect((await uploadPreview(7, SHA.b)).statusCode).toBeLessThan(300);
    const env = async (slug: string, name: string) => JSON.parse((await viaIngress(slug, `/env/${name}`)).body).value as string | null;
    const preview = `pr-7--${plane.project.slug}`;
    expect(await env(plane.project.slug, 'API_KEY')).toBe('production-key');
    expect(await env(plane.project.slug, 'ONLY_PRODUCTION')).toBe('production-only');
    expect(await env(preview, 'API_KEY')).toBe('preview-key');
    expect(await env(preview, 'ONLY_PRODUCTION')).toBeNull();
  }, 120_000);

  it('refuses previews past the live limit and never creates one for a fork', async () => {
    const lifecycle = plane.plane.previews.lifecycle;
    expect(await lifecycle.open(pr(9, SHA.a, { fork: true }))).toEqual({ kind: 'fork' });
    expect(lifecycle.find(plane.project.id, 9)).toBeNull();
    expect(await lifecycle.open(pr(10, SHA.a))).toMatchObject({ kind: 'ready' }); // 7, 8, 10: the limit of 3
    expect(await lifecycle.open(pr(11, SHA.a))).toEqual({ kind: 'limit', limit: 3, live: 3 });
    expect(lifecycle.find(plane.project.id, 11)).toBeNull();
    const list = (await api('GET', `/api/projects/${plane.project.id}/previews`)).json() as { previews: { number: number }[] };
    expect(list.previews.map((p) => p.number)).toEqual([7, 8, 10]);
  }, 60_000);

  it('stops an idle preview and starts it again for the next requests, which wait instead of failing', async () => {
    const slug = `pr-7--${plane.project.slug}`;
    const previewId = plane.plane.previews.lifecycle.find(plane.project.id, 7)!.previewProjectId;
    expect((await viaIngress(slug, '/')).status).toBe(200);
    // Ten minutes later by the sweep's clock: the preview has been idle as long as the setting.
    const stopped = await plane.plane.previews.sweep(Date.now() + 600_000);
    expect(stopped).toContain(previewId);
    expect(plane.plane.releases.current(previewId)).toBeNull();
    expect((await api('GET', `/api/projects/${plane.project.id}/previews/7`)).json().preview.state).toBe('sleeping');

    const answers = await Promise.all(Array.from({ length: 8 }, () => viaIngress(slug, '/')));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(plane.plane.releases.current(previewId)).not.toBeNull();
    expect((await api('GET', `/api/projects/${plane.project.id}/previews/7`)).json().preview.state).toBe('active');
  }, 60_000);

  it('tears a preview down when its pull request closes: app gone, data removed, host 404', async () => {
    const lifecycle = plane.plane.previews.lifecycle;
    const slug = `pr-8--${plane.project.slug}`;
    const previewId = lifecycle.find(plane.project.id, 8)!.previewProjectId;
    expect((await viaIngress(slug, '/')).status).toBe(200); // the sweep stopped it too; this wakes it
    const pid = plane.plane.releases.current(previewId)?.pid;
    expect(pid).toBeTruthy();
    expect(await lifecycle.close({ parentProjectId: plane.project.id, number: 8, merged: true })).toEqual({ removed: true });
    expect(plane.plane.releases.current(previewId)).toBeNull();
    expect(() => process.kill(pid!, 0)).toThrow();
    expect(existsSync(join(plane.dataDir, 'projects', previewId))).toBe(false);
    expect((await viaIngress(slug, '/')).status).toBe(404);
    expect((await api('GET', `/api/projects/${plane.project.id}/previews/8`)).json().error.code).toBe('SVC_PREVIEW_NOT_FOUND');
    expect(await lifecycle.close({ parentProjectId: plane.project.id, number: 8, merged: true })).toEqual({ removed: false });
    // Production still serves.
    expect((await viaIngress(plane.project.slug, '/')).status).toBe(200);
    await eventually(() => (plane.plane.releases.current(plane.project.id) ? true : null));
  }, 60_000);
});

describe('deleting the production project', () => {
  it('removes its previews first: their apps, data and hosts', async () => {
    const lifecycle = plane.plane.previews.lifecycle;
    const previewId = lifecycle.find(plane.project.id, 7)!.previewProjectId;
    expect((await viaIngress(`pr-7--${plane.project.slug}`, '/')).status).toBe(200);
    const res = await plane.app.inject({
      method: 'DELETE',
      url: `/api/projects/${plane.project.id}`,
      headers: plane.owner.headers(),
      payload: { confirm: `delete-site ${plane.project.slug}`, acknowledgeDataLoss: true },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(plane.plane.releases.current(previewId)).toBeNull();
    expect(existsSync(join(plane.dataDir, 'projects', previewId))).toBe(false);
    expect((await viaIngress(`pr-7--${plane.project.slug}`, '/')).status).toBe(404);
    expect(lifecycle.find(plane.project.id, 10)).toBeNull();
  }, 60_000);
});
