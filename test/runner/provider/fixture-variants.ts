// Fixture variants for provider deploys that run migrations: a fixture app carrying another fixture's
// migration history (a later release must contain every migration already applied to the database).
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeArtifact, packArtifact } from '../../../src/artifacts/index.js';
import type { ProviderArtifact } from '../../../runner/provider/provider-contract.js';

const fixtures = join(import.meta.dirname, '../../../fixtures/apps');

/** Pack fixture `name` with the migrations directory of fixture `migrationsOf`. */
export async function packedFixtureWithMigrations(name: string, migrationsOf: string): Promise<ProviderArtifact> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-provider-variant-'));
  try {
    const appDir = join(dir, 'app');
    await cp(join(fixtures, name), appDir, { recursive: true });
    await rm(join(appDir, 'migrations'), { recursive: true, force: true });
    await cp(join(fixtures, migrationsOf, 'migrations'), join(appDir, 'migrations'), { recursive: true });
    await cp(join(appDir, 'src'), join(appDir, 'dist'), { recursive: true });
    const packed = await packArtifact(appDir);
    const decoded = await decodeArtifact(packed.bytes, { expectedDigest: packed.digest });
    return { bytes: packed.bytes, sha256: packed.digest, decoded };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
