// Shared helpers for provider tests: a real packed fixture artifact and a bridge server on port 0.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeArtifact, packArtifact } from '../../../src/artifacts/index.js';
import type { ProviderArtifact } from '../../../runner/provider/provider-contract.js';

/** The healthy fixture packed as `svc deploy --dry-run` would (its build copies src/ to dist/). */
export async function packedFixture(name = 'healthy'): Promise<ProviderArtifact> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-provider-fixture-'));
  try {
    const appDir = join(dir, 'app');
    await cp(join(import.meta.dirname, '../../../fixtures/apps', name), appDir, { recursive: true });
    await cp(join(appDir, 'src'), join(appDir, 'dist'), { recursive: true });
    const packed = await packArtifact(appDir);
    const decoded = await decodeArtifact(packed.bytes, { expectedDigest: packed.digest });
    return { bytes: packed.bytes, sha256: packed.digest, decoded };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Listen on 127.0.0.1:0; returns the base URL and a close function. */
export async function listen(handler: RequestListener): Promise<{ url: string; server: Server; close: () => Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const TOKEN = 'bridge-token-'.padEnd(40, 'x');
