import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { describeBucketContract } from './contract-suite.js';
import { s3Fixture } from './support.js';

describeBucketContract('s3 (s3rver on loopback)', {
  async create(dir) {
    const fixture = await s3Fixture(dir);
    const client = new S3Client({
      endpoint: fixture.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    return {
      ...fixture,
      tamper: async (storageKey, bytes) => {
        await client.send(new PutObjectCommand({ Bucket: 'svc-test', Key: `projects/p_test/${storageKey}`, Body: bytes }));
      },
      close: async () => {
        client.destroy();
        await fixture.close();
      },
    };
  },
});
