// A client that starts an upload and stops sending: the upload is aborted after the idle timeout
// with SVC_UPLOAD_STALLED, the project lock is released, and the next deploy of the project starts.
import { mkdtemp } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardUploadIdle } from '../../src/releases/guard-upload-idle.js';
import { readReleaseSettings } from '../../src/releases/release-limits.js';
import { eventually, packFixture, removeDataDir, startPlane, type Artifact, type Plane } from './release-support.js';
import { startRawUpload } from './raw-upload.js';

let work: string;
let artifact: Artifact;
let plane: Plane;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'svc-rel-stall-'));
  artifact = await packFixture('healthy', work);
  plane = await startPlane({ env: { SVC_UPLOAD_IDLE_TIMEOUT_MS: '400', SVC_SANDBOX: 'off' } });
  await plane.app.listen({ host: '127.0.0.1', port: 0 });
}, 120_000);
afterAll(async () => {
  await plane?.close();
  if (plane) await removeDataDir(plane.dataDir);
  if (work) await removeDataDir(work);
});

describe('stalled upload', () => {
  it('is aborted with SVC_UPLOAD_STALLED (408), frees the project lock, and the next deploy succeeds', async () => {
    const port = (plane.app.server.address() as AddressInfo).port;
    const lockFile = join(plane.dataDir, 'locks', `${plane.project.id}.lock`);
    const headers = plane.owner.headers({
      'content-type': 'application/vnd.svc.deploy+gzip',
      'content-length': String(artifact.bytes.length),
      'x-svc-artifact-digest': artifact.digest,
      'idempotency-key': 'stalled-upload-1',
    });
    const stalled = startRawUpload(port, `/api/projects/${plane.project.id}/releases`, headers, artifact.bytes.subarray(0, artifact.bytes.length >> 1));
    try {
      // The upload holds the lock while its body is (not) arriving: a deploy now is refused.
      await eventually(() => existsSync(lockFile), 5000);
      const blocked = await plane.upload(artifact);
      expect(blocked.json().error.code).toBe('SVC_PROJECT_LOCKED');

      const answer = await stalled.answer;
      expect(answer.status).toBe(408);
      expect(JSON.parse(answer.body).error.code).toBe('SVC_UPLOAD_STALLED');
      expect(answer.headers.connection).toBe('close');
      await stalled.closed; // the server hangs up instead of waiting for the rest of the body
      expect(existsSync(lockFile)).toBe(false);
    } finally {
      stalled.socket.destroy();
    }
    const next = await plane.upload(artifact);
    expect(next.statusCode, next.body).toBe(201);
    expect(next.json().release.status).toBe('active');
  }, 60_000);
});

describe('guardUploadIdle', () => {
  it('passes a body through and closes it when the consumer stops early', async () => {
    let closed = false;
    async function* body() {
      try {
        yield Buffer.from('a');
        yield Buffer.from('b');
        yield Buffer.from('c');
      } finally {
        closed = true;
      }
    }
    const seen: string[] = [];
    for await (const chunk of guardUploadIdle(body(), 1000)) {
      seen.push(Buffer.from(chunk).toString());
      if (seen.length === 2) break;
    }
    expect(seen).toEqual(['a', 'b']);
    expect(closed).toBe(true);
  });

  it('does not count time the consumer spends between reads', async () => {
    async function* body() {
      yield Buffer.from('a');
      yield Buffer.from('b');
    }
    const seen: string[] = [];
    for await (const chunk of guardUploadIdle(body(), 50)) {
      seen.push(Buffer.from(chunk).toString());
      await new Promise((r) => setTimeout(r, 120)); // a busy consumer, not a stalled client
    }
    expect(seen).toEqual(['a', 'b']);
  });

  it('fails with SVC_UPLOAD_STALLED when no chunk arrives in time', async () => {
    async function* body() {
      yield Buffer.from('a');
      await new Promise((r) => setTimeout(r, 10_000));
    }
    const reading = (async () => {
      for await (const chunk of guardUploadIdle(body(), 50)) void chunk;
    })();
    await expect(reading).rejects.toMatchObject({ code: 'SVC_UPLOAD_STALLED', status: 408 });
  });

  it('defaults to 30 s and reads SVC_UPLOAD_IDLE_TIMEOUT_MS', () => {
    expect(readReleaseSettings({}).uploadIdleTimeoutMs).toBe(30_000);
    expect(readReleaseSettings({ SVC_UPLOAD_IDLE_TIMEOUT_MS: '5000' }).uploadIdleTimeoutMs).toBe(5000);
    expect(() => readReleaseSettings({ SVC_UPLOAD_IDLE_TIMEOUT_MS: '0' })).toThrow(/SVC_UPLOAD_IDLE_TIMEOUT_MS/);
  });
});
