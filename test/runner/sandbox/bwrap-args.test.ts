// The sandbox of one app start, as data: the exact bubblewrap argument list and launcher chain, so a
// reviewer can read every mount, namespace and variable line by line and any change shows up here.
import { describe, expect, it } from 'vitest';
import type { AppStartSpec } from '../../../runner/app-runner.js';
import { buildSandboxCommand, defaultSandboxLimits, encodeArgs, type SandboxContext } from '../../../runner/sandbox/bwrap-args.js';

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

const ctx: SandboxContext = {
  tools: { bwrap: '/usr/bin/bwrap', prlimit: '/usr/bin/prlimit', setsid: '/usr/bin/setsid' },
  host: {
    system: [
      { path: '/usr', dir: true },
      { path: '/lib', symlink: 'usr/lib' },
      { path: '/etc/ssl', dir: true, optional: true },
    ],
    nodePath: '/opt/node/bin/node',
    resolvConf: '/srv/runs/.sandbox-etc/resolv.isolated.conf',
    hostsFile: '/srv/runs/.sandbox-etc/hosts',
  },
  port: 41000,
  network: 'isolated',
  limits: defaultSandboxLimits,
  ownUid: true,
  // Only PATH (replaced), LANG, LC_ALL and TZ may come from here; the rest must never reach the app.
  baseEnv: { PATH: '/usr/local/bin:/usr/bin', LANG: 'C.UTF-8', HOME: '/root', SVC_PLATFORM_MASTER_KEY: 'master-key-value', API_KEY: 'not-this' },
  forward: { socat: '/usr/bin/socat', setpriv: '/usr/bin/setpriv', sh: '/bin/sh', socketDir: '/srv/runs/run_1/app' },
};

/** Everything before the mounts of the app's own folders, for the isolated network. */
const isolatedHead = [
  '--unshare-user',
  '--unshare-pid',
  '--unshare-ipc',
  '--unshare-uts',
  '--unshare-cgroup-try',
  '--unshare-net',
  '--disable-userns',
  '--die-with-parent',
  '--new-session',
  '--hostname',
  'svc-app',
  '--ro-bind',
  '/usr',
  '/usr',
  '--symlink',
  'usr/lib',
  '/lib',
  '--ro-bind-try',
  '/etc/ssl',
  '/etc/ssl',
  '--ro-bind',
  '/opt/node/bin/node',
  '/svc/bin/node',
  '--ro-bind',
  '/srv/runs/.sandbox-etc/resolv.isolated.conf',
  '/etc/resolv.conf',
  '--ro-bind',
  '/srv/runs/.sandbox-etc/hosts',
  '/etc/hosts',
  '--proc',
  '/proc',
  '--dev',
  '/dev',
  '--size',
  '67108864',
  '--perms',
  '1777',
  '--tmpfs',
  '/tmp',
];
const appMounts = ['--ro-bind', '/srv/p/releases/rel_1', '/app', '--bind', '/srv/p/data', '/data'];
const fdArgs = ['--info-fd', '4', '--block-fd', '5', '--sync-fd', '6'];
const setenv = (vars: Array<[string, string]>): string[] => vars.flatMap(([name, value]) => ['--setenv', name, value]);
const platformVars = (host: string): Array<[string, string]> => [
  ['PORT', '41000'],
  ['HOST', host],
  ['NODE_ENV', 'production'],
  ['SVC_PROJECT_ID', 'prj_1'],
  ['SVC_RELEASE_ID', 'rel_1'],
  ['SVC_DATA_DIR', '/data'],
  ['SVC_DATABASE_PATH', '/data/db/app.db'],
];
const appVars: Array<[string, string]> = [
  ['PATH', '/svc/bin:/usr/bin:/bin'],
  ['LANG', 'C.UTF-8'],
  ['HOME', '/data'],
  ['GREETING', 'hi'],
  ['API_KEY', 'sekret-value'],
  ['SVC_RECOVERY_KEY', 'recovery-key-value'],
];

describe('buildSandboxCommand', () => {
  it('isolated network with a uid of its own: the exact bubblewrap arguments and launcher', () => {
    const cmd = buildSandboxCommand(spec, ctx);
    expect(cmd.bwrapArgs).toEqual([
      ...isolatedHead,
      ...appMounts,
      '--bind',
      '/srv/runs/run_1/app',
      '/run/svc',
      '--chdir',
      '/app',
      '--clearenv',
      ...setenv([...appVars, ...platformVars('0.0.0.0')]),
      ...fdArgs,
    ]);
    // The host forward (socat, killed with the launcher, none of the sandbox's descriptors) starts in the
    // background; then the launcher becomes prlimit → setsid → bwrap, whose app first starts the forward inside.
    expect(cmd.launcher).toEqual({
      file: '/bin/sh',
      args: [
        '-c',
        '"$0" --pdeathsig KILL -- "$1" TCP-LISTEN:"$2",bind=127.0.0.1,reuseaddr,fork,backlog=4096 UNIX-CONNECT:"$3" 3<&- 4>&- 5<&- 6>&- </dev/null & shift 3; exec "$@"',
        '/usr/bin/setpriv',
        '/usr/bin/socat',
        '41000',
        '/srv/runs/run_1/app/app.sock',
        '/usr/bin/prlimit',
        '--data=536870912:536870912',
        '--nofile=4096:4096',
        '--nproc=2048:2048',
        '--core=0:0',
        '--',
        '/usr/bin/setsid',
        '--fork',
        '--wait',
        '/usr/bin/bwrap',
        '--args',
        '3',
        '--',
        '/bin/sh',
        '-c',
        'env -i "$0" UNIX-LISTEN:/run/svc/app.sock,fork,backlog=4096,mode=600,unlink-early TCP:127.0.0.1:"$PORT" & exec "$1" "$2"',
        '/usr/bin/socat',
        '/svc/bin/node',
        'dist/server.mjs',
      ],
      env: { PATH: '/usr/bin:/bin' },
      replaceEnv: true,
    });
  });

  it('shared network without a uid of its own: no network namespace, no RLIMIT_NPROC, HOST=127.0.0.1', () => {
    const shared = { ...ctx, network: 'shared' as const, ownUid: false, host: { ...ctx.host, resolvConf: '/run/systemd/resolve/stub-resolv.conf' } };
    const cmd = buildSandboxCommand(spec, shared);
    expect(cmd.bwrapArgs).toEqual([
      ...isolatedHead
        .filter((a) => a !== '--unshare-net')
        .map((a) => (a === '/srv/runs/.sandbox-etc/resolv.isolated.conf' ? '/run/systemd/resolve/stub-resolv.conf' : a)),
      ...appMounts,
      '--chdir',
      '/app',
      '--clearenv',
      ...setenv([...appVars, ...platformVars('127.0.0.1')]),
      ...fdArgs,
    ]);
    // RLIMIT_NPROC counts every process of a uid: with svc's own uid it would count the platform too.
    expect(cmd.launcher.args).toEqual([
      '--data=536870912:536870912',
      '--nofile=4096:4096',
      '--core=0:0',
      '--',
      '/usr/bin/setsid',
      '--fork',
      '--wait',
      '/usr/bin/bwrap',
      '--args',
      '3',
      '--',
      '/svc/bin/node',
      'dist/server.mjs',
    ]);
  });

  it('mounts the recovery repository read-write at /recovery and hands the app sandbox paths', () => {
    const cmd = buildSandboxCommand(
      {
        ...spec,
        platformEnv: {
          SVC_BUCKET_DIR: '/srv/p/data/buckets',
          SVC_RECOVERY_DIR: '/srv/p/recovery/epoch-1',
          SVC_RECOVERY_KEY: 'recovery-key-value',
        },
      },
      ctx,
    );
    expect(cmd.bwrapArgs).toEqual([
      ...isolatedHead,
      ...appMounts,
      '--bind',
      '/srv/p/recovery/epoch-1',
      '/recovery',
      '--bind',
      '/srv/runs/run_1/app',
      '/run/svc',
      '--chdir',
      '/app',
      '--clearenv',
      ...setenv([
        ['PATH', '/svc/bin:/usr/bin:/bin'],
        ['LANG', 'C.UTF-8'],
        ['HOME', '/data'],
        ['GREETING', 'hi'],
        ['API_KEY', 'sekret-value'],
        ['SVC_BUCKET_DIR', '/data/buckets'],
        ['SVC_RECOVERY_DIR', '/recovery'],
        ['SVC_RECOVERY_KEY', 'recovery-key-value'],
        ...platformVars('0.0.0.0'),
      ]),
      ...fdArgs,
    ]);
    // A host path the sandbox does not mount would leak the host layout: refused, not passed on.
    expect(() => buildSandboxCommand({ ...spec, platformEnv: { SVC_BUCKET_DIR: '/srv/other/buckets' } }, ctx)).toThrow(
      expect.objectContaining({ code: 'SVC_CONTAINER_INVALID_SPEC' }),
    );
  });

  it('mounts only package.json, dist and node_modules of the linked platform package, read-only at their own path', () => {
    const cmd = buildSandboxCommand(spec, { ...ctx, platformPackageDir: '/opt/svc' });
    expect(cmd.bwrapArgs).toEqual([
      ...isolatedHead,
      ...appMounts,
      '--ro-bind',
      '/opt/svc/package.json',
      '/opt/svc/package.json',
      '--ro-bind',
      '/opt/svc/dist',
      '/opt/svc/dist',
      '--ro-bind',
      '/opt/svc/node_modules',
      '/opt/svc/node_modules',
      '--bind',
      '/srv/runs/run_1/app',
      '/run/svc',
      '--chdir',
      '/app',
      '--clearenv',
      ...setenv([...appVars, ...platformVars('0.0.0.0')]),
      ...fdArgs,
    ]);
    for (const dir of ['/', '/app', '/data/svc', '/proc/self']) {
      expect(() => buildSandboxCommand(spec, { ...ctx, platformPackageDir: dir })).toThrow(expect.objectContaining({ code: 'SVC_CONTAINER_INVALID_SPEC' }));
    }
  });

  it('puts secrets only into the bubblewrap arguments, never into the launcher’s argv or environment', () => {
    const cmd = buildSandboxCommand({ ...spec, secrets: { API_KEY: 'sekret-value', DB_PASSWORD: 'pw-7f3a' } }, ctx);
    const launcher = JSON.stringify(cmd.launcher);
    for (const value of ['sekret-value', 'pw-7f3a', 'recovery-key-value']) {
      expect(launcher).not.toContain(value);
      expect(cmd.bwrapArgs).toContain(value);
    }
    // Nothing of the platform's own environment beyond LANG reaches either list.
    const everything = [...cmd.bwrapArgs, launcher].join('\n');
    for (const value of ['master-key-value', 'not-this', '/root', '/usr/local/bin']) expect(everything).not.toContain(value);
    expect(cmd.launcher.replaceEnv).toBe(true);
  });

  it('keeps a hostile value one argument: it cannot add mounts or options', () => {
    const value = 'x\n--bind / /host --setenv PATH /tmp';
    const cmd = buildSandboxCommand({ ...spec, secrets: { API_KEY: value } }, ctx);
    const at = cmd.bwrapArgs.indexOf('API_KEY');
    expect(cmd.bwrapArgs.slice(at - 1, at + 2)).toEqual(['--setenv', 'API_KEY', value]);
    expect(cmd.bwrapArgs.filter((a) => a === '--bind')).toHaveLength(2); // the data directory and the forward's socket folder
  });

  it('refuses reserved and malformed variable names with SVC_VALIDATION', () => {
    for (const name of ['PORT', 'HOST', 'NODE_OPTIONS', 'SVC_DATA_DIR', 'SVC_ANYTHING', 'A-B', '1A', 'A=B']) {
      expect(() => buildSandboxCommand({ ...spec, env: { [name]: 'v' } }, ctx), name).toThrow(expect.objectContaining({ code: 'SVC_VALIDATION' }));
    }
    for (const name of ['PATH', 'HOME', 'NODE_ENV', 'TRUST_PROXY', 'PORT', 'SVC_PROJECT_ID']) {
      expect(() => buildSandboxCommand({ ...spec, secrets: { [name]: 'v' } }, ctx), name).toThrow(expect.objectContaining({ code: 'SVC_VALIDATION' }));
    }
    expect(() => buildSandboxCommand({ ...spec, platformEnv: { NOT_SVC: 'v' } }, ctx)).toThrow(expect.objectContaining({ code: 'SVC_VALIDATION' }));
  });

  it('refuses an entry outside the release or one that reads as an option, with SVC_VALIDATION', () => {
    for (const entry of ['../x.js', '/abs/x.js', '--inspect=0.0.0.0.js', 'server.ts', 'a\0.js']) {
      expect(() => buildSandboxCommand({ ...spec, entry }, ctx), entry).toThrow(expect.objectContaining({ code: 'SVC_VALIDATION' }));
    }
  });

  it('refuses a port outside 1–65535 with SVC_SANDBOX_CONFIG', () => {
    for (const port of [0, -1, 65536, 8080.5, Number.NaN]) {
      expect(() => buildSandboxCommand(spec, { ...ctx, port }), String(port)).toThrow(expect.objectContaining({ code: 'SVC_SANDBOX_CONFIG' }));
    }
    expect(buildSandboxCommand(spec, { ...ctx, port: 65535 }).bwrapArgs).toContain('65535');
  });

  it('refuses an isolated network without its port forward with SVC_SANDBOX_CONFIG', () => {
    const { forward: _forward, ...withoutForward } = ctx;
    expect(() => buildSandboxCommand(spec, withoutForward)).toThrow(expect.objectContaining({ code: 'SVC_SANDBOX_CONFIG' }));
  });
});

describe('encodeArgs', () => {
  it('terminates every argument with one NUL byte, UTF-8 encoded', () => {
    expect(encodeArgs(['--setenv', 'A', 'a b\nc', 'é', ''])).toEqual(Buffer.from('--setenv\0A\0a b\nc\0é\0\0', 'utf8'));
  });

  it('refuses a NUL byte (it would split one argument into two) with SVC_SANDBOX_CONFIG', () => {
    expect(() => encodeArgs(['--setenv', 'A', 'x\0--bind'])).toThrow(expect.objectContaining({ code: 'SVC_SANDBOX_CONFIG' }));
    const cmd = buildSandboxCommand({ ...spec, secrets: { API_KEY: 'a\0--bind\0/\0/host' } }, ctx);
    expect(() => encodeArgs(cmd.bwrapArgs)).toThrow(expect.objectContaining({ code: 'SVC_SANDBOX_CONFIG' }));
  });
});
