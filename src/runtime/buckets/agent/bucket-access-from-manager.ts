// Adapt the bucket manager to the BucketAccess view used by agent tools and the inventory page.
import type { BucketManager } from '../bucket-manager.js';
import type { BucketAccess } from './bucket-access.js';

/** The BucketAccess view of a manager (no new behaviour: every call goes through the manager's policy). */
export function bucketAccessFromManager(manager: BucketManager): BucketAccess {
  const owner = (value: string | null) => value ?? undefined;
  return {
    definitions: () => manager.definitions,
    list: (input) =>
      manager.bucket(input.bucket).list({ owner: owner(input.owner), prefix: input.prefix ?? '', cursor: input.cursor ?? null, limit: input.limit ?? 100 }),
    stat: (input) => manager.bucket(input.bucket).stat({ owner: owner(input.owner), key: input.key }),
    readBytes: async (input) => {
      const read = await manager.bucket(input.bucket).read({ owner: owner(input.owner), key: input.key });
      return { info: read.object, bytes: read.bytes };
    },
    readUrl: (input) => manager.bucket(input.bucket).readUrl({ owner: owner(input.owner), key: input.key, ttlMs: input.ttlMs }),
    put: (input) =>
      manager
        .bucket(input.bucket)
        .put({ owner: owner(input.owner), key: input.key, contentType: input.contentType, body: input.body, ifSha256: input.ifSha256 ?? null }),
    delete: (input) => manager.bucket(input.bucket).delete({ owner: owner(input.owner), key: input.key, ifSha256: input.ifSha256 ?? null }),
    generateVariant: (input) => manager.bucket(input.bucket).variant({ owner: owner(input.owner), key: input.key, variant: input.variant }),
  };
}
