import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packArtifact } from '../../src/artifacts/index.js';
import { command } from '../../src/core/command.js';
import { execChecked } from '../../src/core/exec.js';
import { cleanupApps, makeApp, type AppFiles } from './make-app.js';

afterAll(cleanupApps);

const config = (extra: object = {}): string => JSON.stringify({ version: 1, entry: 'dist/server.js', ...extra });
const app = (files: AppFiles = {}): Promise<string> => makeApp({ 'svc.deploy.json': config(), 'dist/server.js': 'ok', ...files });

describe('packing rejects forbidden inputs with their own code', () => {
  it.each([
    ['.env', 'dist/.env'],
    ['.env.local', 'dist/config/.env.local'],
    ['.envrc', 'dist/.envrc'],
    ['id_rsa', 'dist/keys/id_rsa'],
    ['id_ed25519', 'dist/id_ed25519'],
    ['*.pem', 'dist/tls/server.pem'],
    ['*.key', 'dist/server.key'],
    ['*.p12', 'dist/cert.p12'],
    ['.npmrc', 'dist/.npmrc'],
    ['.git directory', 'dist/.git/HEAD'],
    ['.git file (worktree)', 'dist/vendor/.git'],
    ['.hg', 'dist/.hg/store'],
    ['.svn', 'dist/.svn/entries'],
  ])('%s → SVC_ARTIFACT_FORBIDDEN_FILE', async (_kind, path) => {
    const dir = await app({ [path]: 'secret' });
    await expect(packArtifact(dir)).rejects.toMatchObject({ code: 'SVC_ARTIFACT_FORBIDDEN_FILE' });
  });

  it('symbolic link to a file → SVC_ARTIFACT_SYMLINK', async () => {
    const dir = await app();
    await symlink('/etc/passwd', join(dir, 'dist/passwd'));
    await expect(packArtifact(dir)).rejects.toMatchObject({ code: 'SVC_ARTIFACT_SYMLINK' });
  });

  it('symbolic link to a directory → SVC_ARTIFACT_SYMLINK', async () => {
    const dir = await app();
    await symlink('/etc', join(dir, 'dist/etc'));
    await expect(packArtifact(dir)).rejects.toMatchObject({ code: 'SVC_ARTIFACT_SYMLINK' });
  });

  it('an include root that is a symlink, or sits below one → SVC_ARTIFACT_SYMLINK', async () => {
    const dir = await makeApp({ 'svc.deploy.json': config({ include: ['out/dist'] }), 'real/dist/server.js': 'ok' });
    await symlink(join(dir, 'real'), join(dir, 'out'));
    await writeFile(join(dir, 'svc.deploy.json'), config({ entry: 'out/dist/server.js', include: ['out/dist'] }));
    await expect(packArtifact(dir)).rejects.toMatchObject({ code: 'SVC_ARTIFACT_SYMLINK' });
    const dir2 = await makeApp({ 'svc.deploy.json': config({ entry: 'dist/server.js', include: ['dist'] }), 'real/server.js': 'ok' });
    await symlink(join(dir2, 'real'), join(dir2, 'dist'));
    await expect(packArtifact(dir2)).rejects.toMatchObject({ code: 'SVC_ARTIFACT_SYMLINK' });
  });

  it('FIFO → SVC_ARTIFACT_SPECIAL_FILE', async () => {
    const dir = await app();
    await execChecked(command('mkfifo', [join(dir, 'dist/pipe')]));
    await expect(packArtifact(dir)).rejects.toMatchObject({ code: 'SVC_ARTIFACT_SPECIAL_FILE' });
  });

  it('Unix socket → SVC_ARTIFACT_SPECIAL_FILE', async () => {
    const dir = await app();
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(join(dir, 'dist/sock'), resolve));
    try {
      await expect(packArtifact(dir)).rejects.toMatchObject({ code: 'SVC_ARTIFACT_SPECIAL_FILE' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('parent traversal in config → SVC_CONFIG_PATH_INVALID before anything is read', async () => {
    const dir = await makeApp({ 'svc.deploy.json': config({ include: ['dist', '../'] }), 'dist/server.js': 'ok' });
    await expect(packArtifact(dir)).rejects.toMatchObject({ code: 'SVC_CONFIG_PATH_INVALID' });
  });

  it('a missing include path → SVC_CONFIG_PATH_NOT_FOUND; a missing entry → SVC_ARTIFACT_ENTRY_MISSING', async () => {
    const dir = await makeApp({ 'svc.deploy.json': config({ include: ['dist', 'public'] }), 'dist/server.js': 'ok' });
    await expect(packArtifact(dir)).rejects.toMatchObject({ code: 'SVC_CONFIG_PATH_NOT_FOUND' });
    const dir2 = await makeApp({ 'svc.deploy.json': config(), 'dist/other.js': 'ok' });
    await expect(packArtifact(dir2)).rejects.toMatchObject({ code: 'SVC_ARTIFACT_ENTRY_MISSING' });
  });

  it('a configured migrations directory that is missing → SVC_CONFIG_PATH_NOT_FOUND; the default one is optional', async () => {
    await expect(packArtifact(await app())).resolves.toMatchObject({ fileCount: 1 });
    const dir = await makeApp({ 'svc.deploy.json': config({ database: { migrations: 'db/migrations' } }), 'dist/server.js': 'ok' });
    await expect(packArtifact(dir)).rejects.toMatchObject({ code: 'SVC_CONFIG_PATH_NOT_FOUND' });
  });

  it('enforces file count, file size and aggregate limits at pack time', async () => {
    const dir = await app({ 'dist/a.js': 'x'.repeat(100), 'dist/b.js': 'y'.repeat(100) });
    await expect(packArtifact(dir, { limits: { maxFiles: 2 } })).rejects.toMatchObject({ code: 'SVC_ARTIFACT_TOO_MANY_FILES' });
    await expect(packArtifact(dir, { limits: { maxFileBytes: 99 } })).rejects.toMatchObject({ code: 'SVC_ARTIFACT_FILE_TOO_LARGE' });
    await expect(packArtifact(dir, { limits: { maxAggregateBytes: 150 } })).rejects.toMatchObject({ code: 'SVC_ARTIFACT_AGGREGATE_TOO_LARGE' });
    await expect(packArtifact(dir, { limits: { maxGzipBytes: 100 } })).rejects.toMatchObject({ code: 'SVC_ARTIFACT_TOO_LARGE' });
    await expect(packArtifact(dir, { limits: { maxFiles: 3, maxFileBytes: 100, maxAggregateBytes: 202 } })).resolves.toMatchObject({ fileCount: 3 });
  });

  it('files whose names differ only in Unicode normalization → SVC_ARTIFACT_DUPLICATE_PATH', async () => {
    const dir = await app();
    await mkdir(join(dir, 'dist/n'), { recursive: true });
    await writeFile(join(dir, 'dist/n/caf\u00e9.js'), '1');
    await writeFile(join(dir, 'dist/n/cafe\u0301.js'), '2');
    await expect(packArtifact(dir)).rejects.toMatchObject({ code: 'SVC_ARTIFACT_DUPLICATE_PATH' });
  });
});
