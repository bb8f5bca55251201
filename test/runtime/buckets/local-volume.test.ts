import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeBucketContract } from './contract-suite.js';
import { localFixture } from './support.js';

describeBucketContract('local volume', {
  async create(dir) {
    const fixture = await localFixture(dir);
    return { ...fixture, tamper: async (storageKey, bytes) => writeFileSync(join(dir, 'volume', 'objects', storageKey), bytes) };
  },
});
