// Shared helpers for bucket tests: temp dirs, backends (local volume, S3 via s3rver on loopback), an app
// served over real HTTP on port 0 with built-in auth, and tiny image fixtures built from their signatures.
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import S3rver from 's3rver';
import {
  createBucketManager,
  createLocalVolumeBackend,
  createS3Backend,
  defineBackend,
  defineSchema,
  openBackend,
  sendFetchResponse,
  toFetchRequest,
  type BucketManager,
  type BucketManagerOptions,
  type OpenedBackend,
  type StorageBackend,
} from '../../../src/runtime/index.js';

export const SIGNING_KEY = 'k'.repeat(48);

/** A fresh temp directory and its cleanup. */
export function tempDir(prefix = 'svc-buckets-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A backend under test: how to create it (again, e.g. after a "restart") and how to dispose of it. */
export interface BackendFixture {
  readonly name: 'local' | 's3';
  make(): StorageBackend;
  close(): Promise<void>;
}

/** Local volume rooted in a temp dir. */
export async function localFixture(dir: string): Promise<BackendFixture> {
  return { name: 'local', make: () => createLocalVolumeBackend({ root: join(dir, 'volume') }), close: async () => undefined };
}

/** s3rver on 127.0.0.1:0 with one bucket; the backend uses path-style addressing and a project prefix. */
export async function s3Fixture(dir: string): Promise<BackendFixture & { endpoint: string; env: Record<string, string> }> {
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: join(dir, 's3'), configureBuckets: [{ name: 'svc-test', configs: [] }] });
  const address = (await server.run()) as { port: number };
  const endpoint = `http://127.0.0.1:${address.port}`;
  const env = {
    SVC_BUCKET_S3_ENDPOINT: endpoint,
    SVC_BUCKET_S3_REGION: 'us-east-1',
    SVC_BUCKET_S3_BUCKET: 'svc-test',
    SVC_BUCKET_S3_ACCESS_KEY_ID: 'S3RVER',
    SVC_BUCKET_S3_SECRET_ACCESS_KEY: 'S3RVER',
    SVC_BUCKET_S3_PATH_STYLE: '1',
    SVC_BUCKET_PREFIX: 'projects/p_test/',
  };
  return {
    name: 's3',
    endpoint,
    env,
    make: () =>
      createS3Backend({
        endpoint,
        region: 'us-east-1',
        bucket: 'svc-test',
        accessKeyId: 'S3RVER',
        secretAccessKey: 'S3RVER',
        pathStyle: true,
        prefix: 'projects/p_test/',
      }),
    close: () => server.close(),
  };
}

/** Create a manager over a fixture with test defaults. */
export function makeManager(
  fixture: BackendFixture,
  dir: string,
  options: Partial<BucketManagerOptions> & Pick<BucketManagerOptions, 'definitions'>,
): Promise<BucketManager> {
  return createBucketManager({ backend: fixture.make(), catalogPath: join(dir, 'catalog.sqlite'), signingKey: SIGNING_KEY, env: {}, ...options });
}

/** An app with built-in auth and the bucket manager, served by node:http on 127.0.0.1:0. */
export interface TestApp {
  readonly url: string;
  readonly backend: OpenedBackend;
  signUp(email: string): Promise<{ cookie: string; csrf: string; userId: string }>;
  close(): Promise<void>;
}

const schema = defineSchema({});
const appBackend = defineBackend({ schema, functions: {}, auth: true });

/** Serve a manager through the runtime's Fetch handler over real HTTP. */
export async function startApp(manager: BucketManager): Promise<TestApp> {
  const opened = openBackend(appBackend, { buckets: manager, onError: () => undefined });
  const server: Server = createServer((req, res) => {
    void opened.fetch(toFetchRequest(req, {}, res)).then((response) => sendFetchResponse(res, response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url,
    backend: opened,
    async signUp(email) {
      const response = await fetch(`${url}/__svc/auth/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: 'correct horse battery' }),
      });
      const body = (await response.json()) as { user: { id: string }; csrfToken: string };
      const cookie = response.headers.getSetCookie()[0]!.split(';')[0]!;
      return { cookie, csrf: body.csrfToken, userId: body.user.id };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      opened.close();
    },
  };
}

function crc32(bytes: Buffer): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])));
  return Buffer.concat([head, data, crc]);
}

/** A valid grayscale PNG of the given size. */
export function png(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 0;
  const raw = Buffer.alloc((width + 1) * height, 0x80);
  for (let y = 0; y < height; y++) raw[y * (width + 1)] = 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** JPEG header bytes (SOI, APP0, SOF0 with dimensions) followed by filler: enough for signature inspection. */
export function jpeg(width: number, height: number): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]);
  const sof = Buffer.from([0xff, 0xc0, 0x00, 0x0b, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 0x01, 0x01, 0x11, 0x00]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof, Buffer.alloc(64, 0x11), Buffer.from([0xff, 0xd9])]);
}
