// Usage reporting per manager, bucket and owner.
import { afterEach, describe, expect, it } from 'vitest';
import { tempBuckets } from '../buckets-images/support.js';

let env: ReturnType<typeof tempBuckets> | undefined;
afterEach(async () => {
  await env?.cleanup();
  env = undefined;
});

describe('usage reporting', () => {
  it('aggregates active and reserved totals per manager, bucket and owner; lists carry scoped usage', async () => {
    env = tempBuckets();
    const manager = await env.open({
      definitions: [
        { name: 'docs', ownership: 'user', visibility: 'private', allowedContentTypes: ['text/plain'] },
        { name: 'site', ownership: 'app', visibility: 'public', allowedContentTypes: ['text/plain'] },
      ],
      env: { SVC_BUCKET_MAX_BYTES: '1000000', SVC_BUCKET_MAX_OBJECTS: '50' },
    });
    const docs = manager.bucket('docs');
    await docs.put({ owner: 'alice', key: 'a.txt', contentType: 'text/plain', body: 'aaaa' });
    await docs.put({ owner: 'alice', key: 'b.txt', contentType: 'text/plain', body: 'bb' });
    await docs.put({ owner: 'bob', key: 'a.txt', contentType: 'text/plain', body: 'b' });
    await manager.bucket('site').put({ key: 'index.txt', contentType: 'text/plain', body: '0123456789' });
    await docs.createUpload({ owner: 'bob', key: 'big.txt', length: 100, contentType: 'text/plain' });

    const total = manager.usage();
    expect(total).toMatchObject({ objects: 4, bytes: 17, reservedObjects: 1, reservedBytes: 100, limits: { maxBytes: 1000000, maxObjects: 50 } });
    expect(total.buckets.docs).toEqual({ objects: 3, bytes: 7, reservedObjects: 1, reservedBytes: 100 });
    expect(total.buckets.site).toEqual({ objects: 1, bytes: 10, reservedObjects: 0, reservedBytes: 0 });
    expect(docs.usage('alice')).toEqual({ bucket: total.buckets.docs, owner: { objects: 2, bytes: 6, reservedObjects: 0, reservedBytes: 0 } });
    expect(docs.usage('bob').owner).toEqual({ objects: 1, bytes: 1, reservedObjects: 1, reservedBytes: 100 });
    expect(docs.list({ owner: 'alice' }).usage).toEqual({ bucket: total.buckets.docs, owner: { objects: 2, bytes: 6, reservedObjects: 0, reservedBytes: 0 } });
  });
});
