// Test helper: build small app directories for the artifact tests.
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Files of a sample app: path → content (and optional mode). */
export type AppFiles = Record<string, string | Buffer | { content: string | Buffer; mode: number }>;

export const sampleFiles: AppFiles = {
  'svc.deploy.json': JSON.stringify({ version: 1, entry: 'dist/server.js', include: ['dist', 'public'], env: { GREETING: 'hello' } }),
  'dist/server.js': 'import "./lib/util.js";\nconsole.log("up");\n',
  'dist/lib/util.js': 'export const x = 1;\n',
  'dist/lib/ünïcode-naïve.js': 'export const y = 2;\n',
  'dist/bin/start.sh': { content: '#!/bin/sh\nexec node dist/server.js\n', mode: 0o755 },
  'dist/empty.txt': '',
  'public/logo.bin': Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 31 + 7) % 256)),
  'migrations/001_init.sql': 'create table t (id integer primary key);\n',
  'src/server.ts': 'not packed',
  'README.md': 'not packed',
};

/** Temp directories created by makeApp, removed by cleanupApps. */
const created: string[] = [];

/** Create a temp app directory with `files` (parents created, modes applied) and return its path. */
export async function makeApp(files: AppFiles = sampleFiles, parent?: string): Promise<string> {
  const dir = parent ?? (await mkdtemp(join(tmpdir(), 'svc-art-')));
  if (!parent) created.push(dir);
  await writeFiles(dir, files);
  return dir;
}

/** Write `files` below `dir`. */
export async function writeFiles(dir: string, files: AppFiles): Promise<void> {
  for (const [path, spec] of Object.entries(files)) {
    const full = join(dir, path);
    await mkdir(dirname(full), { recursive: true });
    const { content, mode } = typeof spec === 'string' || Buffer.isBuffer(spec) ? { content: spec, mode: 0o644 } : spec;
    await writeFile(full, content);
    await chmod(full, mode);
  }
}

/** A fresh empty temp directory (removed by cleanupApps). */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-art-'));
  created.push(dir);
  return dir;
}

/** Remove every directory made by this helper. */
export async function cleanupApps(): Promise<void> {
  await Promise.all(created.splice(0).map((d) => rm(d, { recursive: true, force: true })));
}
