import { describe, expect, it } from 'vitest';
import type { AppStartSpec } from '../../runner/app-runner.js';
import { sandboxLayout } from '../../runner/sandbox-layout.js';

const spec: AppStartSpec = {
  projectId: 'prj_1',
  releaseId: 'rel_1',
  releaseDir: '/srv/svc/projects/prj_1/releases/rel_1',
  entry: 'dist/server.mjs',
  dataDir: '/srv/svc/projects/prj_1/data',
  databasePath: '/srv/svc/projects/prj_1/data/db/app.db',
  env: {},
  secrets: {},
};
const invalidSpec = expect.objectContaining({ code: 'SVC_CONTAINER_INVALID_SPEC' });

describe('sandboxLayout', () => {
  it('mounts the release read-only at /app and the data read-write at /data, nothing else by default', () => {
    expect(sandboxLayout(spec)).toEqual({
      releaseDir: '/app',
      dataDir: '/data',
      databasePath: '/data/db/app.db',
      mounts: [
        { src: '/srv/svc/projects/prj_1/releases/rel_1', dst: '/app', writable: false },
        { src: '/srv/svc/projects/prj_1/data', dst: '/data', writable: true },
      ],
      platformEnv: {},
    });
  });

  it('rewrites bucket paths under /data and mounts the recovery repository at /recovery', () => {
    const layout = sandboxLayout({
      ...spec,
      platformEnv: {
        SVC_BUCKET_DIR: '/srv/svc/projects/prj_1/data/buckets',
        SVC_BUCKET_CATALOG: '/srv/svc/projects/prj_1/data/buckets/catalog.sqlite',
        SVC_BUCKET_PREFIX: 'projects/prj_1/',
        SVC_BUCKET_SIGNING_KEY: 'c2lnbmluZw',
        SVC_RECOVERY_DIR: '/srv/svc/projects/prj_1/recovery/epoch-0001',
        // Standard base64 may begin with "/": key material is never read as a path.
        SVC_RECOVERY_KEY: '/3q2+7w==',
        SVC_SOME_ROOT: '/srv/svc/projects/prj_1/data',
      },
    });
    expect(layout.platformEnv).toEqual({
      SVC_BUCKET_DIR: '/data/buckets',
      SVC_BUCKET_CATALOG: '/data/buckets/catalog.sqlite',
      SVC_BUCKET_PREFIX: 'projects/prj_1/',
      SVC_BUCKET_SIGNING_KEY: 'c2lnbmluZw',
      SVC_RECOVERY_DIR: '/recovery',
      SVC_RECOVERY_KEY: '/3q2+7w==',
      SVC_SOME_ROOT: '/data',
    });
    expect(layout.mounts).toEqual([
      { src: '/srv/svc/projects/prj_1/releases/rel_1', dst: '/app', writable: false },
      { src: '/srv/svc/projects/prj_1/data', dst: '/data', writable: true },
      { src: '/srv/svc/projects/prj_1/recovery/epoch-0001', dst: '/recovery', writable: true },
    ]);
  });

  it('mounts only package.json, dist and node_modules of the platform package, read-only at their own path', () => {
    expect(sandboxLayout(spec, { platformPackageDir: '/opt/svc/' }).mounts.slice(2)).toEqual([
      { src: '/opt/svc/package.json', dst: '/opt/svc/package.json', writable: false },
      { src: '/opt/svc/dist', dst: '/opt/svc/dist', writable: false },
      { src: '/opt/svc/node_modules', dst: '/opt/svc/node_modules', writable: false },
    ]);
  });

  it('refuses host paths the sandbox would not contain', () => {
    const refused: [AppStartSpec, { platformPackageDir?: string }?][] = [
      [{ ...spec, databasePath: '/elsewhere/app.db' }],
      [{ ...spec, databasePath: spec.dataDir }],
      [{ ...spec, databasePath: '/srv/svc/projects/prj_1/data/../app.db' }],
      [{ ...spec, platformEnv: { SVC_BUCKET_DIR: '/srv/svc/projects/prj_1/buckets' } }],
      [{ ...spec, platformEnv: { SVC_BUCKET_DIR: '/srv/svc/projects/prj_1/data/../../prj_2/data' } }],
      [{ ...spec, platformEnv: { SVC_RECOVERY_DIR: 'relative/epoch' } }],
      [{ ...spec, platformEnv: { SVC_RECOVERY_DIR: '/r,ecovery' } }],
      [{ ...spec, releaseDir: '/a,b' }],
      [{ ...spec, dataDir: '/data\nx', databasePath: '/data\nx/app.db' }],
      [{ ...spec, releaseDir: 'releases/rel_1' }],
      [spec, { platformPackageDir: 'node_modules/svc' }],
      [spec, { platformPackageDir: '/opt/s,vc' }],
      [spec, { platformPackageDir: '/' }],
      [spec, { platformPackageDir: '/data/svc' }],
      [spec, { platformPackageDir: '/app' }],
      [spec, { platformPackageDir: '/proc/self' }],
    ];
    for (const [s, options] of refused) expect(() => sandboxLayout(s, options)).toThrow(invalidSpec);
  });

  it('accepts data paths whose names merely begin with two dots', () => {
    const layout = sandboxLayout({
      ...spec,
      databasePath: '/srv/svc/projects/prj_1/data/..db/app.db',
      platformEnv: { SVC_X_DIR: '/srv/svc/projects/prj_1/data/..x' },
    });
    expect(layout.databasePath).toBe('/data/..db/app.db');
    expect(layout.platformEnv).toEqual({ SVC_X_DIR: '/data/..x' });
  });
});
