// An upload refused before its body was read (too large by Content-Length, not authenticated) is
// answered at once and the connection closed, instead of svc draining a body it will never use.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultArtifactLimits } from '../../src/artifacts/index.js';
import { packFixture, removeDataDir, startPlane, type Artifact, type Plane } from './release-support.js';
import { startRawUpload, type RawUpload } from './raw-upload.js';

let work: string;
let artifact: Artifact;
let plane: Plane;
let port: number;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'svc-rel-early-'));
  artifact = await packFixture('healthy', work);
  plane = await startPlane({ env: { SVC_SANDBOX: 'off' } });
  await plane.app.listen({ host: '127.0.0.1', port: 0 });
  port = (plane.app.server.address() as AddressInfo).port;
}, 120_000);
afterAll(async () => {
  await plane?.close();
  if (plane) await removeDataDir(plane.dataDir);
  if (work) await removeDataDir(work);
});

/** Keep sending body bytes, as a client streaming a huge artifact would, until the server closes. */
function keepSending(upload: RawUpload): void {
  const chunk = Buffer.alloc(64 * 1024, 7);
  const pump = (): void => {
    while (!upload.socket.destroyed && upload.socket.write(chunk));
    if (!upload.socket.destroyed) upload.socket.once('drain', pump);
  };
  pump();
}

const declaredTooLarge = String(defaultArtifactLimits.maxRequestBytes + 1);
const uploadHeaders = (): Record<string, string> => ({
  'content-type': 'application/vnd.svc.deploy+gzip',
  'x-svc-artifact-digest': artifact.digest,
  'idempotency-key': `early-${Math.random().toString(36).slice(2)}`,
});

describe('early refusal of an upload', () => {
  it('answers 413 within a second to a keep-alive client declaring a too-large body, then closes the connection', async () => {
    const upload = startRawUpload(
      port,
      `/api/projects/${plane.project.id}/releases`,
      plane.owner.headers({ ...uploadHeaders(), 'content-length': declaredTooLarge }),
      Buffer.alloc(0),
    );
    keepSending(upload);
    try {
      const answer = await upload.answer;
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body).error.code).toBe('SVC_ARTIFACT_REQUEST_TOO_LARGE');
      expect(answer.headers.connection).toBe('close');
      expect(answer.elapsedMs).toBeLessThan(1000);
      await upload.closed; // the server hangs up rather than reading the rest of the body
    } finally {
      upload.socket.destroy();
    }
  });

  it('answers 401 at once to an unauthenticated upload and closes the connection', async () => {
    const upload = startRawUpload(
      port,
      `/api/projects/${plane.project.id}/releases`,
      { ...uploadHeaders(), 'content-length': String(100 * 1024 * 1024) },
      Buffer.alloc(0),
    );
    keepSending(upload);
    try {
      const answer = await upload.answer;
      expect(answer.status).toBe(401);
      expect(answer.headers.connection).toBe('close');
      expect(answer.elapsedMs).toBeLessThan(1000);
      await upload.closed;
    } finally {
      upload.socket.destroy();
    }
  });

  it('answers 413 at once to a JSON body over the body limit and closes the connection', async () => {
    const upload = startRawUpload(
      port,
      `/api/projects`,
      plane.owner.headers({ 'content-type': 'application/json', 'content-length': String(64 * 1024 * 1024) }),
      Buffer.alloc(0),
    );
    keepSending(upload);
    try {
      const answer = await upload.answer;
      expect(answer.status).toBe(413);
      expect(answer.headers.connection).toBe('close');
      expect(answer.elapsedMs).toBeLessThan(1000);
      await upload.closed;
    } finally {
      upload.socket.destroy();
    }
  });

  it('keeps the connection of a refused request whose body was fully received', async () => {
    const body = Buffer.from('{}');
    const upload = startRawUpload(port, `/api/projects/${plane.project.id}/releases`, { ...uploadHeaders(), 'content-length': String(body.length) }, body);
    try {
      const answer = await upload.answer;
      expect(answer.status).toBe(401);
      expect(answer.headers.connection).not.toBe('close');
    } finally {
      upload.socket.destroy();
    }
  });
});
