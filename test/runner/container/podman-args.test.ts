import { describe, expect, it } from 'vitest';
import type { AppStartSpec } from '../../../runner/app-runner.js';
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { list as listTar } from 'tar';
import { parseLddOutput, imageAccounts } from '../../../runner/container/build-node-image.js';
import { writeRootfsTar } from '../../../runner/container/node-rootfs.js';
import {
  buildImportCommand,
  buildRemoveCommand,
  buildRunCommand,
  buildStopCommand,
  defaultContainerLimits,
  defaultPodmanGlobal,
  type RunContext,
} from '../../../runner/container/podman-args.js';

const spec: AppStartSpec = {
  projectId: 'prj_1',
  releaseId: 'rel_1',
  releaseDir: '/srv/p/releases/rel_1',
  entry: 'dist/server.mjs',
  dataDir: '/srv/p/data',
  databasePath: '/srv/p/data/db/app.db',
  env: { GREETING: 'hi' },
  secrets: { API_KEY: 'sekret-value' },
  platformEnv: { SVC_RECOVERY_KEY: 'recovery-key-value' },
};
const ctx: RunContext = {
  image: 'localhost/svc-node:20',
  name: 'svc-prj_1-run_1',
  port: 41000,
  hostIp: '127.0.0.1',
  network: 'svc-p-prj_1',
  limits: defaultContainerLimits,
  global: defaultPodmanGlobal,
  baseEnv: { PATH: '/usr/bin', HOME: '/root', SVC_PLATFORM_MASTER_KEY: 'master', API_KEY: 'not-this' },
};

describe('buildRunCommand', () => {
  it('builds the exact hardened argv', () => {
    const cmd = buildRunCommand(spec, ctx);
    expect(cmd.file).toBe('podman');
    expect(cmd.args).toEqual([
      '--runtime',
      'runc',
      'run',
      '--rm',
      '--name',
      'svc-prj_1-run_1',
      '--label',
      'svc.project=prj_1',
      '--label',
      'svc.release=rel_1',
      '--init',
      '--read-only',
      '--read-only-tmpfs=false',
      '--cap-drop=ALL',
      '--security-opt=no-new-privileges',
      '--user',
      '10001:10001',
      '--pids-limit',
      '256',
      '--memory',
      '512m',
      '--memory-swap',
      '512m',
      '--cpus',
      '1',
      '--ulimit',
      'nofile=4096:4096',
      '--ulimit',
      'nproc=1024:1024',
      '--tmpfs',
      '/tmp:rw,noexec,nosuid,nodev,size=64m',
      '--mount',
      'type=bind,src=/srv/p/releases/rel_1,dst=/app,ro=true',
      '--mount',
      'type=bind,src=/srv/p/data,dst=/data',
      '--workdir',
      '/app',
      '--network',
      'svc-p-prj_1',
      '--publish',
      '127.0.0.1:41000:41000/tcp',
      '--pull=never',
      '--env',
      'GREETING=hi',
      '--env',
      'API_KEY',
      '--env',
      'SVC_RECOVERY_KEY',
      '--env',
      'PATH=/usr/bin:/bin',
      '--env',
      'HOME=/data',
      '--env',
      'PORT=41000',
      '--env',
      'HOST=0.0.0.0',
      '--env',
      'NODE_ENV=production',
      '--env',
      'SVC_PROJECT_ID=prj_1',
      '--env',
      'SVC_RELEASE_ID=rel_1',
      '--env',
      'SVC_DATA_DIR=/data',
      '--env',
      'SVC_DATABASE_PATH=/data/db/app.db',
      'localhost/svc-node:20',
      '/usr/bin/node',
      'dist/server.mjs',
    ]);
  });

  it('mounts only package.json, dist and node_modules of the linked platform package, read-only', () => {
    const args = buildRunCommand(spec, { ...ctx, platformPackageDir: '/opt/svc' }).args;
    const at = args.indexOf('type=bind,src=/srv/p/data,dst=/data');
    expect(args.slice(at + 1, at + 7)).toEqual([
      '--mount',
      'type=bind,src=/opt/svc/package.json,dst=/opt/svc/package.json,ro=true',
      '--mount',
      'type=bind,src=/opt/svc/dist,dst=/opt/svc/dist,ro=true',
      '--mount',
      'type=bind,src=/opt/svc/node_modules,dst=/opt/svc/node_modules,ro=true',
    ]);
    expect(args.filter((a) => a === '--mount')).toHaveLength(5);
  });

  it('mounts the recovery repository at /recovery and passes bucket and recovery paths as container paths', () => {
    const cmd = buildRunCommand(
      {
        ...spec,
        platformEnv: {
          SVC_BUCKET_DIR: '/srv/p/data/buckets',
          SVC_BUCKET_CATALOG: '/srv/p/data/buckets/catalog.sqlite',
          SVC_RECOVERY_DIR: '/srv/p/recovery/epoch-1',
          SVC_RECOVERY_KEY: 'recovery-key-value',
        },
      },
      ctx,
    );
    const at = cmd.args.indexOf('--workdir');
    expect(cmd.args.slice(at - 6, at)).toEqual([
      '--mount',
      'type=bind,src=/srv/p/releases/rel_1,dst=/app,ro=true',
      '--mount',
      'type=bind,src=/srv/p/data,dst=/data',
      '--mount',
      'type=bind,src=/srv/p/recovery/epoch-1,dst=/recovery',
    ]);
    expect(cmd.args.filter((a) => a === '--mount')).toHaveLength(3);
    const byName = cmd.args.indexOf('--env', cmd.args.indexOf('GREETING=hi'));
    expect(cmd.args.slice(byName, byName + 12)).toEqual([
      '--env',
      'API_KEY',
      '--env',
      'SVC_BUCKET_DIR',
      '--env',
      'SVC_BUCKET_CATALOG',
      '--env',
      'SVC_RECOVERY_DIR',
      '--env',
      'SVC_RECOVERY_KEY',
      '--env',
      'PATH=/usr/bin:/bin',
    ]);
    expect(cmd.env).toEqual({
      PATH: '/usr/bin',
      HOME: '/root',
      API_KEY: 'sekret-value',
      SVC_BUCKET_DIR: '/data/buckets',
      SVC_BUCKET_CATALOG: '/data/buckets/catalog.sqlite',
      SVC_RECOVERY_DIR: '/recovery',
      SVC_RECOVERY_KEY: 'recovery-key-value',
    });
    expect(() => buildRunCommand({ ...spec, platformEnv: { SVC_BUCKET_DIR: '/srv/other/buckets' } }, ctx)).toThrow(
      expect.objectContaining({ code: 'SVC_CONTAINER_INVALID_SPEC' }),
    );
  });

  it('joins only a project network, never host, none or podman’s shared default', () => {
    for (const network of ['host', 'none', 'podman', 'slirp4netns', 'container:other', 'ns:/proc/1/ns/net', 'svc-p-', 'svc-x-a']) {
      expect(() => buildRunCommand(spec, { ...ctx, network })).toThrow(expect.objectContaining({ code: 'SVC_CONTAINER_INVALID_SPEC' }));
    }
  });

  it('keeps secret values out of argv and passes them (only) through podman’s environment', () => {
    const cmd = buildRunCommand(spec, ctx);
    const argv = cmd.args.join('\n');
    expect(argv).not.toContain('sekret-value');
    expect(argv).not.toContain('recovery-key-value');
    expect(cmd.replaceEnv).toBe(true);
    expect(cmd.env).toEqual({ PATH: '/usr/bin', HOME: '/root', API_KEY: 'sekret-value', SVC_RECOVERY_KEY: 'recovery-key-value' });
  });

  it('rejects secret names podman itself would act on, reserved names, root users and non-loopback publishing', () => {
    for (const name of ['LD_PRELOAD', 'CONTAINERS_CONF', 'XDG_RUNTIME_DIR', 'TMPDIR', 'PATH', 'PORT', 'SVC_X', 'HTTPS_PROXY']) {
      expect(() => buildRunCommand({ ...spec, secrets: { [name]: 'v' } }, ctx)).toThrow(expect.objectContaining({ code: 'SVC_VALIDATION' }));
    }
    expect(() => buildRunCommand(spec, { ...ctx, limits: { ...ctx.limits, user: '0:0' } })).toThrow(
      expect.objectContaining({ code: 'SVC_CONTAINER_INVALID_SPEC' }),
    );
    expect(() => buildRunCommand(spec, { ...ctx, hostIp: '0.0.0.0' })).toThrow(expect.objectContaining({ code: 'SVC_CONTAINER_INVALID_SPEC' }));
    expect(() => buildRunCommand({ ...spec, databasePath: '/elsewhere/app.db' }, ctx)).toThrow(expect.objectContaining({ code: 'SVC_CONTAINER_INVALID_SPEC' }));
    expect(() => buildRunCommand({ ...spec, releaseDir: '/a,b' }, ctx)).toThrow(expect.objectContaining({ code: 'SVC_CONTAINER_INVALID_SPEC' }));
    expect(() => buildRunCommand({ ...spec, entry: '../x.js' }, ctx)).toThrow(expect.objectContaining({ code: 'SVC_VALIDATION' }));
  });
});

describe('other podman commands', () => {
  it('stop, remove and import argv', () => {
    expect(buildStopCommand(defaultPodmanGlobal, 'c1', 2500).args).toEqual(['--runtime', 'runc', 'stop', '--ignore', '--time', '3', 'c1']);
    expect(buildRemoveCommand(defaultPodmanGlobal, 'c1').args).toEqual(['--runtime', 'runc', 'rm', '--force', '--ignore', '--time', '0', 'c1']);
    expect(buildImportCommand(defaultPodmanGlobal, '/t/rootfs.tar', 'img:1', '10001:10001').args).toEqual([
      '--runtime',
      'runc',
      'import',
      '--change',
      'USER 10001:10001',
      '--change',
      'WORKDIR /app',
      '--change',
      'ENV PATH=/usr/bin:/bin',
      '--change',
      'CMD ["/usr/bin/node"]',
      '/t/rootfs.tar',
      'img:1',
    ]);
  });

  it('tars a root filesystem with every entry owned by 0:0 and modes kept (the sticky, world-writable /tmp)', async () => {
    const work = await mkdtemp(join(tmpdir(), 'svc-rootfs-tar-'));
    try {
      await mkdir(join(work, 'root/tmp'), { recursive: true });
      await mkdir(join(work, 'root/usr/bin'), { recursive: true });
      await chmod(join(work, 'root/tmp'), 0o1777);
      await writeFile(join(work, 'root/usr/bin/node'), 'binary');
      await chmod(join(work, 'root/usr/bin/node'), 0o755);
      await chown(join(work, 'root/usr/bin/node'), 4321, 4321);
      await writeRootfsTar(join(work, 'root'), join(work, 'rootfs.tar'));
      const entries: { path: string; uid: number | undefined; gid: number | undefined; mode: number | undefined }[] = [];
      await listTar({ file: join(work, 'rootfs.tar'), onReadEntry: (e) => void entries.push({ path: e.path, uid: e.uid, gid: e.gid, mode: e.mode }) });
      expect(entries.map((e) => e.path).sort()).toEqual(['./', './tmp/', './usr/', './usr/bin/', './usr/bin/node']);
      expect(entries.every((e) => e.uid === 0 && e.gid === 0)).toBe(true);
      expect(entries.find((e) => e.path === './tmp/')?.mode).toBe(0o1777);
      expect(entries.find((e) => e.path === './usr/bin/node')?.mode).toBe(0o755);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });

  it('parses ldd output and writes a non-root account', () => {
    const out = [
      '\tlinux-vdso.so.1 (0x00007ffd)',
      '\tlibstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6 (0x00007f11)',
      '\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f12)',
      '\t/lib64/ld-linux-x86-64.so.2 (0x00007f13)',
    ].join('\n');
    expect(parseLddOutput(out)).toEqual(['/lib/x86_64-linux-gnu/libc.so.6', '/lib/x86_64-linux-gnu/libstdc++.so.6', '/lib64/ld-linux-x86-64.so.2']);
    expect(imageAccounts('10001:10001').passwd).toContain('app:x:10001:10001:');
  });
});
