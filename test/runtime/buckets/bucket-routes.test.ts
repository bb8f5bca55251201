// The bucket routes' paths over real HTTP (local volume): which path reaches which handler, how object
// keys and bucket names are decoded, and the codes of paths that are no route or cannot be decoded.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BucketManager } from '../../../src/runtime/index.js';
import { DEFINITIONS } from './contract-suite.js';
import { localFixture, makeManager, startApp, tempDir, type TestApp } from './support.js';

let manager: BucketManager;
let app: TestApp;
let cleanup: () => void;

beforeEach(async () => {
  const temp = tempDir();
  cleanup = temp.cleanup;
  manager = await makeManager(await localFixture(temp.dir), temp.dir, { definitions: DEFINITIONS as never });
  app = await startApp(manager);
});
afterEach(async () => {
  await app.close();
  await manager.close();
  cleanup();
});

async function get(
  path: string,
  cookie: string,
): Promise<{ status: number; body: { object?: { key: string }; objects?: unknown[]; error?: { code: string } } }> {
  const response = await fetch(`${app.url}/__svc${path}`, { headers: { cookie } });
  return { status: response.status, body: (await response.json()) as never };
}

describe('bucket routes', () => {
  it('decodes the object key as a whole, slashes included, and the bucket name', async () => {
    const alice = await app.signUp('alice@example.com');
    await manager.bucket('docs').put({ owner: alice.userId, key: 'dir/a b.txt', body: Buffer.from('hi'), contentType: 'text/plain' });
    for (const path of [
      '/buckets/docs/objects/dir/a%20b.txt',
      '/buckets/docs/objects/dir%2Fa%20b.txt',
      '/buckets/%64ocs/objects/dir/a%20b.txt',
      '/buckets/docs/objects/dir/a%20b.txt?x=1',
    ]) {
      const res = await get(path, alice.cookie);
      expect(res.status, path).toBe(200);
      expect(res.body.object?.key, path).toBe('dir/a b.txt');
    }
    expect((await get('/buckets/docs/objects', alice.cookie)).body.objects).toHaveLength(1);
    expect((await get('/buckets/docs/objects/dir/a%20b.txt/', alice.cookie)).body.error?.code).toBe('SVC_BUCKET_INVALID_KEY');
  });

  it('answers paths that are no bucket route, unknown buckets and undecodable paths with their codes', async () => {
    const alice = await app.signUp('alice@example.com');
    const codes: [string, string][] = [
      ['/buckets/docs/other', 'SVC_RUNTIME_NOT_FOUND'],
      ['/buckets/docs/uploads/a/b', 'SVC_RUNTIME_NOT_FOUND'],
      ['/buckets/docs/read/x', 'SVC_RUNTIME_NOT_FOUND'],
      ['/buckets/docs', 'SVC_RUNTIME_NOT_FOUND'],
      ['/files/p1/x/y', 'SVC_RUNTIME_NOT_FOUND'],
      ['/files/p1', 'SVC_RUNTIME_NOT_FOUND'],
      ['/files/p1/x', 'SVC_BUCKET_NOT_FOUND'],
      ['/buckets/nope/objects', 'SVC_BUCKET_UNKNOWN'],
      // The runtime's handler refuses an undecodable path before any bucket route sees it.
      ['/buckets/%E0/objects', 'SVC_RUNTIME_UNKNOWN_FUNCTION'],
      ['/buckets/docs/objects/%E0%A4%A', 'SVC_RUNTIME_UNKNOWN_FUNCTION'],
    ];
    for (const [path, code] of codes) expect((await get(path, alice.cookie)).body.error?.code, path).toBe(code);
  });
});
