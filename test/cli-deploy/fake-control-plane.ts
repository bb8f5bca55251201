// A tiny control plane speaking the real releases/projects contract over real HTTP on port 0, whose
// upload answer a test scripts: answer normally, answer with an error, or read the whole upload and
// then drop the connection (the "ambiguous failure"). Idempotency works like the real server:
// the same key returns the same release and never creates a second one.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Project } from '../../src/projects/contract.js';
import type { Release, ReleaseStatus } from '../../src/releases/contract.js';

/** What the next upload does after its body was read. */
export type UploadScript =
  { kind: 'ok'; status?: ReleaseStatus; failure?: Release['failure'] } | { kind: 'drop' } | { kind: 'error'; status: number; code: string };

/** One upload as the server saw it. */
export interface SeenUpload {
  key: string | undefined;
  digest: string | undefined;
  bodyDigest: string;
  contentType: string | undefined;
  contentLength: string | undefined;
  bytes: number;
}

/** The running fake and what it observed. */
export interface FakeControlPlane {
  url: string;
  uploads: SeenUpload[];
  projects: Project[];
  releases: Release[];
  /** Bodies of POST …/rollback as received. */
  rollbacks: Array<{ releaseId: string; restoreData?: boolean; confirm?: string }>;
  /** Scripts consumed one per upload request (a new release is still recorded for 'ok' and 'drop'). */
  script: UploadScript[];
  close(): Promise<void>;
}

const TOKEN = 'svc_test_token';
export const FAKE_TOKEN = TOKEN;

/** Start the fake on 127.0.0.1:0. */
export async function startFakeControlPlane(): Promise<FakeControlPlane> {
  const state: FakeControlPlane = { url: '', uploads: [], projects: [], releases: [], rollbacks: [], script: [], close: async () => {} };
  const byKey = new Map<string, Release>();
  let counter = 0;

  const send = (res: ServerResponse, status: number, body: unknown): void => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const readBody = async (req: IncomingMessage): Promise<Buffer> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return send(res, 401, { error: { code: 'SVC_UNAUTHENTICATED', message: 'no token' } });
    if (req.method === 'POST' && url.pathname === '/api/projects') {
      const body = JSON.parse((await readBody(req)).toString('utf8')) as { name: string; slug?: string; organizationId?: string };
      const slug = body.slug ?? body.name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
      const project: Project = {
        id: `prj_${++counter}`,
        slug,
        name: body.name,
        organizationId: body.organizationId ?? 'org_personal',
        createdAt: new Date().toISOString(),
        status: { state: 'new', activeReleaseId: null, url: `http://${slug}.localhost:7070` },
      };
      state.projects.push(project);
      return send(res, 201, { project });
    }
    const projectMatch = /^\/api\/projects\/([^/]+)(\/.*)?$/.exec(url.pathname);
    const project = state.projects.find((p) => p.id === projectMatch?.[1] || p.slug === projectMatch?.[1]);
    if (!projectMatch || !project) return send(res, 404, { error: { code: 'SVC_NOT_FOUND', message: 'no such project' } });
    const rest = projectMatch[2] ?? '';
    if (req.method === 'GET' && rest === '') return send(res, 200, { project });
    if (req.method === 'POST' && rest === '/releases') return upload(req, res, project);
    if (req.method === 'GET' && rest === '/releases') {
      const releases = state.releases.filter((r) => r.projectId === project.id).reverse();
      const usage = { bundleBytes: 10, databaseBytes: 20, snapshotBytes: 0, totalBytes: 30, retainedArtifacts: releases.length };
      return send(res, 200, {
        releases,
        activeReleaseId: releases.find((r) => r.status === 'active')?.id ?? null,
        storage: { usage, limits: { maxRetainedArtifacts: 10, maxStorageBytes: 1e9 } },
      });
    }
    const one = /^\/releases\/([^/]+)$/.exec(rest);
    if (req.method === 'GET' && one) {
      const release = state.releases.find((r) => r.id === one[1] && r.projectId === project.id);
      if (!release) return send(res, 404, { error: { code: 'SVC_RELEASE_NOT_FOUND', message: 'no such release' } });
      const answer = { ...release };
      // A running transaction finishes after the first look.
      if (release.status === 'candidate') Object.assign(release, { status: 'active', step: null, activatedAt: new Date().toISOString() });
      return send(res, 200, { release: answer });
    }
    if (req.method === 'POST' && rest === '/rollback') {
      const body = JSON.parse((await readBody(req)).toString('utf8')) as { releaseId: string; restoreData?: boolean; confirm?: string };
      state.rollbacks.push(body);
      if (body.restoreData && body.confirm !== `restore ${project.slug}`)
        return send(res, 400, { error: { code: 'SVC_RELEASE_CONFIRMATION_MISMATCH', message: `Type exactly: restore ${project.slug}` } });
      const target = state.releases.find((r) => r.id === body.releaseId);
      const active = state.releases.find((r) => r.projectId === project.id && r.status === 'active');
      if (!target) return send(res, 404, { error: { code: 'SVC_RELEASE_NOT_FOUND', message: 'no such release' } });
      if (active) active.status = 'inactive';
      target.status = 'active';
      return send(res, 200, { release: target, previousReleaseId: active?.id ?? null, restoredData: body.restoreData === true });
    }
    return send(res, 404, { error: { code: 'SVC_NOT_FOUND', message: `no route ${req.method} ${url.pathname}` } });
  };

  const upload = async (req: IncomingMessage, res: ServerResponse, project: Project): Promise<void> => {
    const body = await readBody(req);
    const key = req.headers['idempotency-key'] as string | undefined;
    const digest = req.headers['x-svc-artifact-digest'] as string | undefined;
    state.uploads.push({
      key,
      digest,
      bodyDigest: createHash('sha256').update(body).digest('hex'),
      contentType: req.headers['content-type'],
      contentLength: req.headers['content-length'],
      bytes: body.length,
    });
    const script = state.script.shift() ?? { kind: 'ok' };
    if (script.kind === 'error') return send(res, script.status, { error: { code: script.code, message: `scripted ${script.code}` } });
    let release = key ? byKey.get(`${project.id}\u0000${key}`) : undefined;
    const created = release === undefined;
    if (!release) {
      const status = script.kind === 'ok' ? (script.status ?? 'active') : 'active';
      release = {
        id: `rel_${++counter}`,
        projectId: project.id,
        status,
        step: status === 'candidate' ? 'health' : null,
        digest: digest ?? '',
        createdAt: new Date().toISOString(),
        activatedAt: status === 'active' ? new Date().toISOString() : null,
        finishedAt: new Date().toISOString(),
        failure: script.kind === 'ok' ? (script.failure ?? null) : null,
        predecessorId: null,
        artifactRetained: true,
        storage: { artifactBytes: body.length, bundleBytes: body.length * 2, fileCount: 1, snapshotBytes: null },
        config: { entry: 'dist/server.mjs', healthPath: '/', healthTimeoutMs: 1000, databasePath: 'app.db' },
        createdBy: { type: 'token', id: 'tok_1', name: null },
      };
      if (key) byKey.set(`${project.id}\u0000${key}`, release);
      state.releases.push(release);
    }
    // The release exists now; dropping the socket leaves the client not knowing that.
    if (script.kind === 'drop') return void req.socket.destroy();
    send(res, created ? 201 : 200, { release, created });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => send(res, 500, { error: { code: 'SVC_INTERNAL', message: String(error) } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
