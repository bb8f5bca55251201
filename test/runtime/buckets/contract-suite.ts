// One contract suite for every storage backend (Litestream-style): server API, tus over real HTTP, faults,
// access rules and integrity. local-volume.test.ts and s3.test.ts run it against their backend.
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as tus from 'tus-js-client';
import type { BucketManager, StorageBackend } from '../../../src/runtime/index.js';
import { jpeg, makeManager, png, startApp, tempDir, type BackendFixture, type TestApp } from './support.js';

const MiB = 1024 * 1024;
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const bytes = (n: number, seed = 1): Buffer => {
  const out = Buffer.alloc(n);
  let x = seed;
  for (let i = 0; i < n; i += 4) {
    x = (x * 1103515245 + 12345) >>> 0;
    out.writeUInt32LE(x, Math.min(i, n - 4));
  }
  return out;
};

export const DEFINITIONS = [
  {
    name: 'docs',
    ownership: 'user',
    visibility: 'private',
    allowedContentTypes: ['text/plain', 'application/octet-stream', 'image/*'],
    maxObjectBytes: 12 * MiB,
    perOwnerMaxBytes: 40 * MiB,
    maxChunkBytes: 6 * MiB,
  },
  {
    name: 'quota',
    ownership: 'user',
    visibility: 'private',
    allowedContentTypes: ['application/octet-stream'],
    maxObjectBytes: 6 * MiB,
    maxBytes: 8 * MiB,
    perOwnerMaxBytes: 8 * MiB,
  },
  {
    name: 'photos',
    ownership: 'app',
    visibility: 'public',
    browserAccess: 'public',
    allowedContentTypes: ['image/png', 'image/jpeg'],
    image: { formats: ['png', 'jpeg'], maxWidth: 2000, maxHeight: 2000, maxPixels: 1_000_000, variants: { thumb: { width: 64, height: 64, format: 'webp' } } },
  },
  { name: 'internal', ownership: 'app', visibility: 'private', browserAccess: 'server', allowedContentTypes: ['text/plain'] },
] as const;

/** Fixture factory plus a way to rewrite stored bytes behind the catalog. */
export interface ContractTarget {
  create(dir: string): Promise<BackendFixture & { tamper(storageKey: string, bytes: Buffer): Promise<void> }>;
}

interface Ctx {
  dir: string;
  cleanup: () => void;
  fixture: BackendFixture & { tamper(storageKey: string, bytes: Buffer): Promise<void> };
  manager: BucketManager;
  app: TestApp;
  clock: { now: number };
}

/** Register the contract suite for one backend. */
export function describeBucketContract(name: string, target: ContractTarget): void {
  describe(`bucket contract: ${name}`, () => {
    let c: Ctx;
    const open = async (): Promise<BucketManager> => makeManager(c.fixture, c.dir, { definitions: DEFINITIONS as never, clock: () => c.clock.now });

    beforeEach(async () => {
      const { dir, cleanup } = tempDir();
      const fixture = await target.create(dir);
      c = { dir, cleanup, fixture, clock: { now: Date.now() } } as Ctx;
      c.manager = await open();
      c.app = await startApp(c.manager);
    });
    afterEach(async () => {
      await c.app.close();
      await c.manager.close();
      await c.fixture.close();
      c.cleanup();
    });

    it('puts, reads, lists, stats and deletes through the server API with usage', async () => {
      const docs = c.manager.bucket('docs');
      const body = bytes(300_000);
      const info = await docs.put({ owner: 'u1', key: 'a/b.bin', body, contentType: 'application/octet-stream' });
      expect(info).toMatchObject({ key: 'a/b.bin', generation: 1, sha256: sha(body), size: body.length, url: null });
      expect((await docs.read({ owner: 'u1', key: 'a/b.bin' })).bytes.equals(body)).toBe(true);
      const list = docs.list({ owner: 'u1' });
      expect(list.objects.map((o) => o.key)).toEqual(['a/b.bin']);
      expect(list.usage.owner).toMatchObject({ objects: 1, bytes: body.length, reservedBytes: 0 });
      expect(docs.list({ owner: 'u2' }).objects).toEqual([]);
      expect(c.manager.usage()).toMatchObject({ objects: 1, bytes: body.length, buckets: { docs: { objects: 1 } } });
      expect(await docs.delete({ owner: 'u1', key: 'a/b.bin' })).toBe(true);
      await expect(docs.read({ owner: 'u1', key: 'a/b.bin' })).rejects.toMatchObject({ code: 'SVC_BUCKET_NOT_FOUND' });
      expect(c.manager.usage()).toMatchObject({ objects: 0, bytes: 0 });
      expect((await c.manager.sweep()).garbage.pending).toBe(0);
    });

    it('keeps the prior generation current until commit; replacements reserve the delta and honour compare-and-set', async () => {
      const docs = c.manager.bucket('docs');
      const v1 = bytes(6 * MiB, 1);
      const first = await docs.put({ owner: 'u1', key: 'f', body: v1, contentType: 'application/octet-stream' });
      const oldKey = storageKey(c.dir, 'docs', 'f');
      const v2 = bytes(7 * MiB, 2);
      await expect(
        docs.createUpload({ owner: 'u1', key: 'f', length: v2.length, contentType: 'application/octet-stream', ifSha256: sha(v2) }),
      ).rejects.toMatchObject({ code: 'SVC_BUCKET_PRECONDITION_FAILED' });
      await expect(docs.createUpload({ owner: 'u1', key: 'f', length: 1, contentType: 'application/octet-stream', ifSha256: '' })).rejects.toMatchObject({
        code: 'SVC_BUCKET_PRECONDITION_FAILED',
      });
      const ticket = await docs.createUpload({ owner: 'u1', key: 'f', length: v2.length, contentType: 'application/octet-stream', ifSha256: first.sha256 });
      expect(docs.usage('u1').owner).toMatchObject({ objects: 1, bytes: v1.length, reservedObjects: 0, reservedBytes: MiB });
      await c.manager.uploads.write(ticket.id, 0, toStream(v2.subarray(0, 5 * MiB)), 5 * MiB);
      expect((await docs.read({ owner: 'u1', key: 'f' })).bytes.equals(v1)).toBe(true);
      const done = await c.manager.uploads.write(ticket.id, 5 * MiB, toStream(v2.subarray(5 * MiB)), v2.length - 5 * MiB);
      expect(done.object).toMatchObject({ generation: 2, sha256: sha(v2), size: v2.length });
      expect((await docs.read({ owner: 'u1', key: 'f' })).bytes.equals(v2)).toBe(true);
      expect(docs.usage('u1').owner).toMatchObject({ objects: 1, bytes: v2.length, reservedBytes: 0 });
      expect(await c.fixture.make().stat(oldKey)).toBeNull();
    });

    it('uploads with tus-js-client in chunks over HTTP (session + CSRF) and serves byte-identical results', async () => {
      const user = await c.app.signUp('a@example.com');
      const body = bytes(11 * MiB, 7);
      const url = await tusUpload(c.app.url, body, { key: 'big.bin', contentType: 'application/octet-stream', sha256: sha(body) }, user, 5 * MiB);
      expect(url).toContain('/__svc/buckets/docs/uploads/');
      const stat = await getJson(`${c.app.url}/__svc/buckets/docs/objects/big.bin`, user);
      expect(stat.body.object).toMatchObject({ sha256: sha(body), size: body.length, generation: 1 });
      const intent = await postJson(`${c.app.url}/__svc/buckets/docs/read-intents`, { key: 'big.bin' }, user);
      const download = await fetch(`${c.app.url}${intent.body.url as string}`);
      expect(download.status).toBe(200);
      expect(download.headers.get('cache-control')).toBe('private, no-store');
      expect(download.headers.get('content-length')).toBe(String(body.length));
      expect(Buffer.from(await download.arrayBuffer()).equals(body)).toBe(true);
      const range = await fetch(`${c.app.url}${intent.body.url as string}`, { headers: { range: 'bytes=10-19' } });
      expect(range.status).toBe(206);
      expect(Buffer.from(await range.arrayBuffer()).equals(body.subarray(10, 20))).toBe(true);
      // The capability dies with the reservation.
      expect((await fetch(url, { method: 'HEAD', headers: { 'tus-resumable': '1.0.0' } })).status).toBe(404);
    });

    it('refuses a wrong chunk offset without touching earlier chunks', async () => {
      const user = await c.app.signUp('o@example.com');
      const body = bytes(10 * MiB, 3);
      const upload = await createTus(c.app.url, 'docs', body.length, { key: 'o.bin', contentType: 'application/octet-stream' }, user);
      expect((await patch(upload, 0, body.subarray(0, 5 * MiB))).status).toBe(204);
      const rewrite = await patch(upload, 0, bytes(5 * MiB, 99));
      expect(rewrite.status).toBe(409);
      expect(rewrite.code).toBe('SVC_BUCKET_OFFSET_MISMATCH');
      expect((await patch(upload, 6 * MiB, body.subarray(6 * MiB))).status).toBe(409);
      expect((await head(upload)).offset).toBe(5 * MiB);
      expect((await patch(upload, 5 * MiB, body.subarray(5 * MiB))).status).toBe(204);
      expect((await c.manager.bucket('docs').read({ owner: user.userId, key: 'o.bin' })).bytes.equals(body)).toBe(true);
    });

    it('survives a connection cut mid-chunk: HEAD reports the durable offset and the resumed result is byte-identical', async () => {
      const user = await c.app.signUp('cut@example.com');
      const body = bytes(11 * MiB, 5);
      const upload = await createTus(c.app.url, 'docs', body.length, { key: 'cut.bin', contentType: 'application/octet-stream' }, user);
      expect((await patch(upload, 0, body.subarray(0, 5 * MiB))).status).toBe(204);
      await cutPatch(upload, 5 * MiB, body.subarray(5 * MiB, 10 * MiB), 2 * MiB);
      let offset = -1;
      for (let i = 0; i < 100 && offset !== 5 * MiB; i++) {
        offset = (await head(upload)).offset;
        if (offset !== 5 * MiB) await new Promise((r) => setTimeout(r, 50));
      }
      expect(offset).toBe(5 * MiB);
      let resumed = await patch(upload, 5 * MiB, body.subarray(5 * MiB, 10 * MiB));
      for (let i = 0; i < 100 && resumed.status === 423; i++) {
        await new Promise((r) => setTimeout(r, 50));
        resumed = await patch(upload, 5 * MiB, body.subarray(5 * MiB, 10 * MiB));
      }
      expect(resumed.status).toBe(204);
      expect((await patch(upload, 10 * MiB, body.subarray(10 * MiB))).status).toBe(204);
      expect((await c.manager.bucket('docs').read({ owner: user.userId, key: 'cut.bin' })).bytes.equals(body)).toBe(true);
    });

    it('rejects a bad SHA-256 and makes nothing visible', async () => {
      const user = await c.app.signUp('h@example.com');
      const body = bytes(1000);
      const upload = await createTus(
        c.app.url,
        'docs',
        body.length,
        { key: 'h.bin', contentType: 'application/octet-stream', sha256: sha(Buffer.from('other')) },
        user,
      );
      const result = await patch(upload, 0, body);
      expect(result.code).toBe('SVC_BUCKET_CHECKSUM_MISMATCH');
      expect((await head(upload)).status).toBe(404);
      expect(c.manager.bucket('docs').usage(user.userId).owner).toMatchObject({ objects: 0, reservedBytes: 0, reservedObjects: 0 });
      const chunkSum = await patch(
        await createTus(c.app.url, 'docs', 4, { key: 'c.bin', contentType: 'application/octet-stream' }, user),
        0,
        Buffer.from('abcd'),
        { 'upload-checksum': `sha256 ${createHash('sha256').update('abce').digest('base64')}` },
      );
      expect(chunkSum.status).toBe(460);
    });

    it('verifies types by signature: PNG declared as JPEG, script declared as image, disallowed types', async () => {
      const photos = c.manager.bucket('photos');
      await expect(photos.put({ key: 'x.jpg', body: png(10, 10), contentType: 'image/jpeg' })).rejects.toMatchObject({ code: 'SVC_BUCKET_TYPE_MISMATCH' });
      await expect(photos.put({ key: 'x.png', body: '<script>alert(1)</script>', contentType: 'image/png' })).rejects.toMatchObject({
        code: 'SVC_BUCKET_TYPE_MISMATCH',
      });
      await expect(photos.put({ key: 'x.svg', body: '<svg/>', contentType: 'image/svg+xml' })).rejects.toMatchObject({ code: 'SVC_BUCKET_TYPE_NOT_ALLOWED' });
      await expect(c.manager.bucket('docs').put({ owner: 'u', key: 'p.txt', body: png(4, 4), contentType: 'text/plain' })).rejects.toMatchObject({
        code: 'SVC_BUCKET_TYPE_MISMATCH',
      });
      await expect(photos.put({ key: 'huge.png', body: png(1500, 1500), contentType: 'image/png' })).rejects.toMatchObject({
        code: 'SVC_BUCKET_IMAGE_INVALID',
      });
      const ok = await photos.put({ key: 'ok.jpg', body: jpeg(640, 480), contentType: 'image/jpeg' });
      expect(ok).toMatchObject({ width: 640, height: 480, contentType: 'image/jpeg' });
      expect(c.manager.usage().reservedBytes).toBe(0);
    });

    it('refuses oversize objects and chunks', async () => {
      const user = await c.app.signUp('big@example.com');
      const tooBig = await fetch(`${c.app.url}/__svc/buckets/docs/uploads`, {
        method: 'POST',
        headers: tusCreateHeaders(13 * MiB, { key: 'x', contentType: 'text/plain' }, user),
      });
      expect(tooBig.status).toBe(413);
      expect(((await tooBig.json()) as { error: { code: string } }).error.code).toBe('SVC_BUCKET_TOO_LARGE');
      const upload = await createTus(c.app.url, 'docs', 7 * MiB, { key: 'y', contentType: 'application/octet-stream' }, user);
      expect((await patch(upload, 0, bytes(7 * MiB))).code).toBe('SVC_BUCKET_CHUNK_TOO_LARGE');
    });

    it('lets exactly one of two parallel uploads reserve the remaining quota', async () => {
      const user = await c.app.signUp('q@example.com');
      const attempts = await Promise.all(
        [1, 2].map((i) =>
          fetch(`${c.app.url}/__svc/buckets/quota/uploads`, {
            method: 'POST',
            headers: tusCreateHeaders(5 * MiB, { key: `q${i}`, contentType: 'application/octet-stream' }, user),
          }),
        ),
      );
      expect(attempts.map((r) => r.status).sort()).toEqual([201, 413]);
      const loser = attempts.find((r) => r.status === 413)!;
      expect(((await loser.json()) as { error: { code: string } }).error.code).toBe('SVC_BUCKET_QUOTA_EXCEEDED');
      const winner = attempts.find((r) => r.status === 201)!;
      expect((await patch(winner.headers.get('location')!, 0, bytes(5 * MiB))).status).toBe(204);
      expect(c.manager.bucket('quota').usage(user.userId).owner).toMatchObject({ objects: 1, bytes: 5 * MiB, reservedBytes: 0 });
    });

    it('rejects tampered and expired capabilities', async () => {
      const user = await c.app.signUp('cap@example.com');
      const upload = await createTus(c.app.url, 'docs', 10, { key: 'cap.txt', contentType: 'text/plain' }, user);
      const token = upload.split('/').pop()!;
      const [payload, mac] = token.split('.') as [string, string];
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as unknown[];
      claims[3] = 'someone-else';
      const forged = `${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${mac}`;
      const flipped = `${payload}.${mac.slice(0, -2)}${mac.at(-2) === 'A' ? 'B' : 'A'}${mac.slice(-1)}`;
      for (const bad of [forged, flipped, `${payload}.`, 'garbage']) {
        const r = await patch(upload.replace(token, bad), 0, Buffer.from('0123456789'));
        expect(r.code).toBe('SVC_BUCKET_CAPABILITY_INVALID');
      }
      const other = upload.replace('/buckets/docs/', '/buckets/quota/');
      expect((await patch(other, 0, Buffer.from('0123456789'))).code).toBe('SVC_BUCKET_CAPABILITY_INVALID');
      c.clock.now += 7 * 60 * 60 * 1000;
      expect((await patch(upload, 0, Buffer.from('0123456789'))).code).toBe('SVC_BUCKET_CAPABILITY_EXPIRED');
    });

    it('never lets one user list, read or mutate another user partition over HTTP', async () => {
      const alice = await c.app.signUp('alice@example.com');
      const bob = await c.app.signUp('bob@example.com');
      await tusUpload(c.app.url, Buffer.from('alice secret'), { key: 'secret.txt', contentType: 'text/plain' }, alice, 5 * MiB);
      expect((await getJson(`${c.app.url}/__svc/buckets/docs/objects/secret.txt`, bob)).status).toBe(404);
      expect((await getJson(`${c.app.url}/__svc/buckets/docs/objects`, bob)).body.objects).toEqual([]);
      expect((await getJson(`${c.app.url}/__svc/buckets/docs/objects`, alice)).body.objects).toHaveLength(1);
      const del = await fetch(`${c.app.url}/__svc/buckets/docs/objects/secret.txt`, {
        method: 'DELETE',
        headers: { cookie: bob.cookie, 'x-svc-csrf': bob.csrf },
      });
      expect(del.status).toBe(404);
      expect((await postJson(`${c.app.url}/__svc/buckets/docs/read-intents`, { key: 'secret.txt' }, bob)).status).toBe(404);
      const noCsrf = await fetch(`${c.app.url}/__svc/buckets/docs/objects/secret.txt`, { method: 'DELETE', headers: { cookie: alice.cookie } });
      expect(noCsrf.status).toBe(403);
      const readUrl = (await postJson(`${c.app.url}/__svc/buckets/docs/read-intents`, { key: 'secret.txt' }, alice)).body.url as string;
      expect((await fetch(`${c.app.url}${readUrl}`, { headers: { cookie: bob.cookie } })).status).toBe(403);
      const aliceUpload = await createTus(c.app.url, 'docs', 3, { key: 'x.txt', contentType: 'text/plain' }, alice);
      const stolen = await patch(aliceUpload, 0, Buffer.from('bob'), { cookie: bob.cookie });
      expect(stolen.code).toBe('SVC_BUCKET_FORBIDDEN');
      expect((await fetch(`${c.app.url}/__svc/buckets/docs/objects`)).status).toBe(401);
      expect((await fetch(`${c.app.url}/__svc/buckets/internal/objects`, { headers: { cookie: alice.cookie } })).status).toBe(403);
      expect(c.manager.bucket('docs').list({ owner: bob.userId }).objects).toEqual([]);
    });

    it('fails closed when object bytes change behind the catalog or disappear', async () => {
      const docs = c.manager.bucket('docs');
      const body = Buffer.from('original bytes!!');
      await docs.put({ owner: 'u1', key: 't.txt', body, contentType: 'text/plain' });
      expect((await docs.read({ owner: 'u1', key: 't.txt' })).bytes.equals(body)).toBe(true);
      await c.fixture.tamper(storageKey(c.dir, 'docs', 't.txt'), Buffer.from('tampered bytes!!'));
      await expect(docs.read({ owner: 'u1', key: 't.txt' })).rejects.toMatchObject({ code: 'SVC_BUCKET_INTEGRITY' });
      const url = docs.readUrl({ owner: 'u1', key: 't.txt' }).url;
      const response = await fetch(`${c.app.url}${url}`);
      expect(response.status).toBe(500);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('SVC_BUCKET_INTEGRITY');
      await docs.put({ owner: 'u1', key: 'gone.txt', body, contentType: 'text/plain' });
      await c.fixture.make().delete(storageKey(c.dir, 'docs', 'gone.txt'));
      await expect(docs.read({ owner: 'u1', key: 'gone.txt' })).rejects.toMatchObject({ code: 'SVC_BUCKET_INTEGRITY' });
    });

    it('delivers public objects by opaque id + digest with safe headers; the URL changes per generation', async () => {
      const photos = c.manager.bucket('photos');
      const first = await photos.put({ key: 'cat.png', body: png(20, 10), contentType: 'image/png' });
      expect(first.url).toMatch(/^\/__svc\/files\/p[0-9a-z]+\/[0-9a-f]{64}$/);
      expect(first.url).not.toContain('cat');
      const response = await fetch(`${c.app.url}${first.url!}`);
      expect(response.status).toBe(200);
      expect(Object.fromEntries(response.headers)).toMatchObject({
        'content-type': 'image/png',
        'content-length': String(png(20, 10).length),
        'x-content-type-options': 'nosniff',
        etag: `"sha256-${first.sha256}"`,
        'content-security-policy': "default-src 'none'; sandbox",
        'cache-control': 'public, max-age=31536000, immutable',
      });
      expect(response.headers.get('content-disposition')).toMatch(/^inline; filename="cat.png"/);
      expect((await fetch(`${c.app.url}${first.url!}`, { headers: { 'if-none-match': `"sha256-${first.sha256}"` } })).status).toBe(304);
      const second = await photos.put({ key: 'cat.png', body: png(30, 10), contentType: 'image/png' });
      expect(second.url).not.toBe(first.url);
      expect((await fetch(`${c.app.url}${first.url!}`)).status).toBe(404);
      expect((await fetch(`${c.app.url}${second.url!}`)).status).toBe(200);
      const listed = await fetch(`${c.app.url}/__svc/buckets/photos/objects`);
      expect(((await listed.json()) as { objects: unknown[] }).objects).toHaveLength(1);
      const privateInfo = await c.manager.bucket('docs').put({ owner: 'u', key: 'p.txt', body: 'x', contentType: 'text/plain' });
      expect(privateInfo.url).toBeNull();
    });

    it('sweeps expired reservations before new ones and releases their quota', async () => {
      const docs = c.manager.bucket('docs');
      const ticket = await docs.createUpload({ owner: 'u1', key: 'e', length: 5 * MiB, contentType: 'application/octet-stream', ttlMs: 60_000 });
      await c.manager.uploads.write(ticket.id, 0, toStream(bytes(5 * MiB).subarray(0, 5 * MiB)), 5 * MiB).catch(() => undefined);
      const ticket2 = await docs.createUpload({ owner: 'u1', key: 'e2', length: 6 * MiB, contentType: 'application/octet-stream', ttlMs: 60_000 });
      expect(docs.usage('u1').owner?.reservedBytes).toBe(6 * MiB);
      c.clock.now += 61_000;
      await docs.createUpload({ owner: 'u1', key: 'e3', length: 1, contentType: 'application/octet-stream' });
      expect(docs.usage('u1').owner).toMatchObject({ reservedBytes: 1, reservedObjects: 1 });
      await expect(c.manager.uploads.write(ticket2.id, 0, toStream(Buffer.alloc(1)), 1)).rejects.toMatchObject({ code: 'SVC_BUCKET_UPLOAD_NOT_FOUND' });
    });

    it('resumes an upload after a restart (durable offset, hash rebuilt or re-verified)', async () => {
      const docs = c.manager.bucket('docs');
      const body = bytes(8 * MiB, 11);
      const ticket = await docs.createUpload({ owner: 'u1', key: 'r', length: body.length, contentType: 'application/octet-stream', sha256: sha(body) });
      await c.manager.uploads.write(ticket.id, 0, toStream(body.subarray(0, 5 * MiB)), 5 * MiB);
      await c.app.close();
      await c.manager.close();
      c.manager = await open();
      c.app = await startApp(c.manager);
      const done = await c.manager.uploads.write(ticket.id, 5 * MiB, toStream(body.subarray(5 * MiB)), body.length - 5 * MiB);
      expect(done.object).toMatchObject({ sha256: sha(body), size: body.length });
      expect((await c.manager.bucket('docs').read({ owner: 'u1', key: 'r' })).bytes.equals(body)).toBe(true);
    });

    it('retries provider deletions from the durable garbage ledger across restarts', async () => {
      await c.app.close();
      await c.manager.close();
      let failing = true;
      const flaky = (inner: StorageBackend): StorageBackend => ({
        ...inner,
        delete: async (key) => (failing ? Promise.reject(new Error('provider down')) : inner.delete(key)),
      });
      c.manager = await makeManager({ ...c.fixture, make: () => flaky(c.fixture.make()) }, c.dir, {
        definitions: DEFINITIONS as never,
        clock: () => c.clock.now,
      });
      c.app = await startApp(c.manager);
      const docs = c.manager.bucket('docs');
      await docs.put({ owner: 'u1', key: 'g', body: 'bytes', contentType: 'text/plain' });
      const key = storageKey(c.dir, 'docs', 'g');
      await docs.delete({ owner: 'u1', key: 'g' });
      expect((await c.manager.sweep()).garbage.pending).toBe(1);
      expect(await c.fixture.make().stat(key)).not.toBeNull();
      failing = false;
      await c.app.close();
      await c.manager.close();
      c.clock.now += 2 * 60 * 60 * 1000;
      c.manager = await open();
      c.app = await startApp(c.manager);
      expect((await c.manager.sweep()).garbage.pending).toBe(0);
      expect(await c.fixture.make().stat(key)).toBeNull();
    });

    it('publishes definitions in the manifest and answers tus discovery', async () => {
      const manifest = (await (await fetch(`${c.app.url}/__svc/manifest`)).json()) as { buckets: Array<{ name: string; maxChunkBytes: number }> };
      expect(manifest.buckets.map((b) => b.name)).toEqual(['docs', 'quota', 'photos', 'internal']);
      const options = await fetch(`${c.app.url}/__svc/buckets/docs/uploads`, { method: 'OPTIONS' });
      expect(options.status).toBe(204);
      expect(options.headers.get('tus-version')).toBe('1.0.0');
      expect(options.headers.get('tus-extension')).toContain('creation');
      expect(options.headers.get('tus-max-size')).toBe(String(12 * MiB));
    });
  });
}

// ---- helpers -------------------------------------------------------------------------------------------

function toStream(b: Buffer): Readable {
  return Readable.from([b]);
}

/** The storage key of an object, read straight from the catalog file (tests only). */
export function storageKey(dir: string, bucket: string, key: string): string {
  const db = new Database(join(dir, 'catalog.sqlite'), { readonly: true });
  try {
    return (db.prepare('SELECT storage_key AS k FROM objects WHERE bucket = ? AND key = ?').get(bucket, key) as { k: string }).k;
  } finally {
    db.close();
  }
}

type User = { cookie: string; csrf: string };

function metadata(meta: Record<string, string>): string {
  return Object.entries(meta)
    .map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`)
    .join(',');
}

function tusCreateHeaders(length: number, meta: Record<string, string>, user: User): Record<string, string> {
  return { 'tus-resumable': '1.0.0', 'upload-length': String(length), 'upload-metadata': metadata(meta), cookie: user.cookie, 'x-svc-csrf': user.csrf };
}

async function createTus(base: string, bucket: string, length: number, meta: Record<string, string>, user: User): Promise<string> {
  const response = await fetch(`${base}/__svc/buckets/${bucket}/uploads`, { method: 'POST', headers: tusCreateHeaders(length, meta, user) });
  if (response.status !== 201) throw new Error(`create failed ${response.status} ${await response.text()}`);
  return response.headers.get('location')!;
}

async function patch(
  url: string,
  offset: number,
  body: Buffer,
  headers: Record<string, string> = {},
): Promise<{ status: number; code: string | null; offset: number }> {
  const response = await fetch(url, {
    method: 'PATCH',
    headers: { 'tus-resumable': '1.0.0', 'content-type': 'application/offset+octet-stream', 'upload-offset': String(offset), ...headers },
    body: new Uint8Array(body),
  });
  const text = await response.text();
  const code = text === '' ? null : ((JSON.parse(text) as { error?: { code: string } }).error?.code ?? null);
  return { status: response.status, code, offset: Number(response.headers.get('upload-offset') ?? -1) };
}

async function head(url: string): Promise<{ status: number; offset: number }> {
  const response = await fetch(url, { method: 'HEAD', headers: { 'tus-resumable': '1.0.0' } });
  return { status: response.status, offset: Number(response.headers.get('upload-offset') ?? -1) };
}

/** Send `sendBytes` of a chunk that declares its full length, then cut the connection. */
async function cutPatch(url: string, offset: number, chunk: Buffer, sendBytes: number): Promise<void> {
  await new Promise<void>((resolve) => {
    const req = httpRequest(url, {
      method: 'PATCH',
      headers: {
        'tus-resumable': '1.0.0',
        'content-type': 'application/offset+octet-stream',
        'upload-offset': String(offset),
        'content-length': String(chunk.length),
      },
    });
    req.on('error', () => resolve());
    req.on('response', () => resolve());
    req.write(chunk.subarray(0, sendBytes), () =>
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 150),
    );
  });
}

async function getJson(url: string, user: User): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, { headers: { cookie: user.cookie } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function postJson(url: string, body: unknown, user: User): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { cookie: user.cookie, 'x-svc-csrf': user.csrf, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Upload with tus-js-client (creation + PATCH chunks + retries); resolves with the upload URL. */
function tusUpload(base: string, body: Buffer, meta: Record<string, string>, user: User, chunkSize: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const upload = new tus.Upload(body, {
      endpoint: `${base}/__svc/buckets/docs/uploads`,
      chunkSize,
      metadata: meta,
      headers: { cookie: user.cookie, 'x-svc-csrf': user.csrf },
      retryDelays: [0, 100, 200],
      onError: reject,
      onSuccess: () => resolve(upload.url!),
    });
    upload.start();
  });
}
