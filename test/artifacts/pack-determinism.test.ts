import { cp, readdir, readFile, stat, utimes, chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeArtifact, extractArtifact, packArtifact, writeArtifactFile, type PackProgress } from '../../src/artifacts/index.js';
import { cleanupApps, makeApp, sampleFiles, tempDir, writeFiles } from './make-app.js';

afterAll(cleanupApps);

async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await listFiles(dir, rel)));
    else out.push(rel);
  }
  return out.sort();
}

describe('deterministic packing', () => {
  it('gives byte-identical artifacts for two packs of the same directory', async () => {
    const app = await makeApp();
    const a = await packArtifact(app);
    const b = await packArtifact(app);
    expect(a.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(b.bytes.equals(a.bytes)).toBe(true);
    expect(b.digest).toBe(a.digest);
  });

  it('gives the same digest from a copy in another directory with shuffled mtimes, other permission bits and another umask', async () => {
    const original = await makeApp();
    const expected = (await packArtifact(original)).digest;

    // Write the copy in reverse order (different inode/readdir order) under a different umask.
    const copyParent = await tempDir();
    const copy = join(copyParent, 'elsewhere', 'my-app');
    const previousUmask = process.umask(0o077);
    try {
      const reversed = Object.fromEntries(Object.entries(sampleFiles).reverse());
      await writeFiles(copy, reversed);
    } finally {
      process.umask(previousUmask);
    }
    // Permission bits beyond owner-execute do not matter: 0644 → 0600, 0755 → 0700.
    await chmod(join(copy, 'dist/server.js'), 0o600);
    await chmod(join(copy, 'dist/bin/start.sh'), 0o700);
    let i = 0;
    for (const file of await listFiles(copy)) {
      const when = new Date(Date.UTC(2001, 0, 1) + ((i++ * 7_919_000_000) % 600_000_000_000));
      await utimes(join(copy, file), when, when);
    }
    expect((await stat(join(copy, 'dist/server.js'))).mtimeMs).not.toBe((await stat(join(original, 'dist/server.js'))).mtimeMs);
    const again = await packArtifact(copy);
    expect(again.digest).toBe(expected);

    // A plain recursive copy (fresh mtimes and inodes) packs to the same bytes too.
    const copy2 = join(copyParent, 'second');
    await cp(original, copy2, { recursive: true, preserveTimestamps: false });
    expect((await packArtifact(copy2)).digest).toBe(expected);
  });

  it('changes the digest when a byte, a name, the executable bit or the config changes', async () => {
    const app = await makeApp();
    const digests = new Set([(await packArtifact(app)).digest]);
    await writeFile(join(app, 'dist/lib/util.js'), 'export const x = 2;\n');
    digests.add((await packArtifact(app)).digest);
    await chmod(join(app, 'dist/lib/util.js'), 0o755);
    digests.add((await packArtifact(app)).digest);
    await writeFile(
      join(app, 'svc.deploy.json'),
      JSON.stringify({ version: 1, entry: 'dist/server.js', include: ['dist', 'public'], env: { GREETING: 'bye' } }),
    );
    digests.add((await packArtifact(app)).digest);
    expect(digests.size).toBe(4);
  });

  it('writes a canonical document: sorted files, normalized modes, fixed gzip header', async () => {
    const app = await makeApp();
    const packed = await packArtifact(app);
    // gzip header: magic, deflate, no flags, MTIME 0, OS 255 (unknown)
    expect([...packed.bytes.subarray(0, 10)]).toEqual([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
    const doc = JSON.parse(gunzipSync(packed.bytes).toString('utf8')) as {
      protocol: string;
      builder: string;
      service: { version: string };
      runtime: { name: string; version: string };
      files: { path: string; mode: number }[];
    };
    expect(Object.keys(doc)).toEqual(['protocol', 'builder', 'service', 'runtime', 'config', 'files']);
    expect(doc.protocol).toBe('svc-deploy/1');
    expect(doc.builder).toBe('svc-builder/1');
    const pkg = JSON.parse(await readFile(join(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string };
    expect(doc.service.version).toBe(pkg.version);
    expect(doc.runtime).toEqual({ name: 'node', version: process.versions.node });
    expect(doc.files.map((f) => f.path)).toEqual([
      'dist/bin/start.sh',
      'dist/empty.txt',
      'dist/lib/util.js',
      'dist/lib/ünïcode-naïve.js',
      'dist/server.js',
      'migrations/001_init.sql',
      'public/logo.bin',
    ]);
    expect(doc.files.find((f) => f.path === 'dist/bin/start.sh')?.mode).toBe(0o100755);
    expect(doc.files.find((f) => f.path === 'dist/server.js')?.mode).toBe(0o100644);
    expect(Object.keys(doc.files[0]!)).toEqual(['path', 'size', 'mode', 'sha256', 'content']);
  });

  it('reports progress for walk, hash and compress', async () => {
    const app = await makeApp();
    const phases = new Set<PackProgress['phase']>();
    await packArtifact(app, { onProgress: (p) => phases.add(p.phase) });
    expect([...phases].sort()).toEqual(['compress', 'hash', 'walk']);
  });

  it('round-trips: pack → decode → extract reproduces the included files, and re-packing the extraction gives the same digest', async () => {
    const app = await makeApp();
    const packed = await packArtifact(app);
    const decoded = await decodeArtifact(packed.bytes, { expectedDigest: packed.digest });
    expect(decoded.digest).toBe(packed.digest);
    expect(decoded.document).toEqual(packed.document);
    expect(decoded.totalBytes).toBe(packed.totalBytes);
    const target = join(await tempDir(), 'release-1');
    await extractArtifact(decoded, target);
    const files = await listFiles(target);
    expect(files).toEqual(packed.document.files.map((f) => f.path));
    for (const file of files) {
      expect((await readFile(join(target, file))).equals(await readFile(join(app, file)))).toBe(true);
      const want = packed.document.files.find((f) => f.path === file)!.mode & 0o777;
      expect((await stat(join(target, file))).mode & 0o777).toBe(want);
    }
    const repacked = await packArtifact(target, { config: decoded.config });
    expect(repacked.digest).toBe(packed.digest);
  });

  it('writes the dry-run file atomically under .svc/artifacts/<digest>.svc.gz', async () => {
    const app = await makeApp();
    const packed = await packArtifact(app);
    const path = await writeArtifactFile(app, packed);
    expect(path).toBe(join(app, '.svc', 'artifacts', `${packed.digest}.svc.gz`));
    expect((await readFile(path)).equals(packed.bytes)).toBe(true);
    // The local artifact directory is never packed back in.
    expect((await packArtifact(app)).digest).toBe(packed.digest);
  });
});
