import { describe, expect, it } from 'vitest';
import { buildRunCommand, defaultContainerLimits, defaultPodmanGlobal } from '../../../runner/container/podman-args.js';
import { SWARM_DAEMON_FLAGS } from '../../../runner/swarm/daemon-requirements.js';
import { releaseServiceSpec, swarmHealthCheck } from '../../../runner/swarm/service-spec.js';
import { swarmSecretSpec } from '../../../runner/swarm/secret-spec.js';
import { swarmSecretName, swarmServiceName, swarmVolumeName } from '../../../runner/swarm/swarm-names.js';
import { DIGEST, IMAGE, NODE, serviceInput } from './swarm-fixture.js';

const labels = { 'svc.project': 'prj_1', 'svc.release': 'rel_1', 'svc.generation': '7', 'svc.digest': DIGEST, 'svc.role': 'app' };
const probe =
  "fetch('http://127.0.0.1:'+process.env.PORT+process.argv[1],{signal:AbortSignal.timeout(Number(process.argv[2]))})" +
  '.then(r=>process.exit(r.ok?0:1),()=>process.exit(1))';
const secs = (s: number): number => s * 1e9;

describe('releaseServiceSpec', () => {
  it('builds the exact service spec of a release', () => {
    expect(releaseServiceSpec(serviceInput)).toEqual({
      Name: 'svc-a-prj_1',
      Labels: labels,
      TaskTemplate: {
        ContainerSpec: {
          Image: IMAGE,
          Labels: labels,
          Command: ['/usr/bin/node', '/svc/swarm-entrypoint.mjs'],
          Args: ['serve', 'dist/server.mjs'],
          Env: [
            'GREETING=hi',
            'PATH=/usr/bin:/bin',
            'HOME=/data',
            'PORT=3000',
            'HOST=0.0.0.0',
            'NODE_ENV=production',
            'SVC_PROJECT_ID=prj_1',
            'SVC_RELEASE_ID=rel_1',
            'SVC_DATA_DIR=/data',
            'SVC_DATABASE_PATH=/data/db/app.db',
            `SVC_RELEASE_DIGEST=${DIGEST}`,
            'SVC_ARTIFACT_URL=https://svc.example.com/v1/nodes/artifacts/rel_1',
          ],
          Dir: '/app',
          User: '10001:10001',
          ReadOnly: true,
          Init: true,
          CapabilityDrop: ['ALL'],
          CapabilityAdd: [],
          Ulimits: [
            { Name: 'nofile', Soft: 4096, Hard: 4096 },
            { Name: 'nproc', Soft: 1024, Hard: 1024 },
          ],
          Mounts: [
            { Type: 'volume', Source: 'svc-v-prj_1', Target: '/data', ReadOnly: false, VolumeOptions: { NoCopy: false, Labels: { 'svc.project': 'prj_1' } } },
            { Type: 'tmpfs', Target: '/app', TmpfsOptions: { SizeBytes: 256 * 1024 * 1024, Mode: 0o777 } },
            { Type: 'tmpfs', Target: '/tmp', TmpfsOptions: { SizeBytes: 64 * 1024 * 1024, Mode: 0o777 } },
          ],
          Secrets: [
            { SecretID: 'sec-cred-id', SecretName: 'svc-s-cred', File: { Name: 'svc.credential', UID: '10001', GID: '10001', Mode: 0o400 } },
            { SecretID: 'sec-api-id', SecretName: 'svc-s-api', File: { Name: 'env.API_KEY', UID: '10001', GID: '10001', Mode: 0o400 } },
          ],
          StopGracePeriod: secs(10),
          StopSignal: 'SIGTERM',
          HealthCheck: {
            Test: ['CMD', '/usr/bin/node', '-e', probe, '/healthz', '4000'],
            Interval: secs(2),
            Timeout: secs(5),
            Retries: 5,
            StartPeriod: secs(30),
          },
        },
        Resources: { Limits: { NanoCPUs: 1e9, MemoryBytes: 512 * 1024 * 1024, Pids: 256 } },
        RestartPolicy: { Condition: 'any', Delay: secs(1), MaxAttempts: 0, Window: 0 },
        Placement: { Constraints: [`node.id==${NODE}`] },
        Networks: [{ Target: 'svc-p-prj_1' }],
        ForceUpdate: 7,
      },
      Mode: { Replicated: { Replicas: 1 } },
      UpdateConfig: { Parallelism: 1, Delay: 0, FailureAction: 'rollback', Monitor: secs(30), MaxFailureRatio: 0, Order: 'start-first' },
      RollbackConfig: { Parallelism: 1, Delay: 0, FailureAction: 'pause', Monitor: secs(30), MaxFailureRatio: 0, Order: 'start-first' },
      EndpointSpec: { Mode: 'dnsrr', Ports: [{ Protocol: 'tcp', TargetPort: 3000, PublishMode: 'host' }] },
    });
  });

  it('names a canary as a second service of the project and honours replicas', () => {
    const spec = releaseServiceSpec({ ...serviceInput, role: 'canary', replicas: 3 });
    expect(spec.Name).toBe('svc-c-prj_1');
    expect(spec.Name).not.toBe(swarmServiceName('prj_1', 'app'));
    expect(spec.Labels['svc.role']).toBe('canary');
    expect(spec.Mode).toEqual({ Replicated: { Replicas: 3 } });
    expect(spec.TaskTemplate.ContainerSpec.Mounts[0]?.Source).toBe(swarmVolumeName('prj_1'));
  });

  it('never carries a secret value, only references to swarm secrets', () => {
    const values = { API_KEY: 'sekret-value-123', SVC_RECOVERY_KEY: 'recovery-key-456' };
    const credential = 'short-lived-credential-789';
    const created = Object.entries({ ...values, credential }).map(([name, value]) => swarmSecretSpec('prj_1', 7, name, value));
    expect(created.map((c) => Buffer.from(c.Data, 'base64').toString('utf8'))).toEqual([...Object.values(values), credential]);
    const ref = (name: string, i: number): { name: string; secretId: string; secretName: string } => ({
      name,
      secretId: `id${i}`,
      secretName: created[i]?.Name ?? '',
    });
    const spec = releaseServiceSpec({
      ...serviceInput,
      credential: ref('credential', 2),
      secrets: Object.keys(values).map(ref),
    });
    const json = JSON.stringify(spec);
    for (const value of [...Object.values(values), credential]) {
      expect(json).not.toContain(value);
      expect(json).not.toContain(Buffer.from(value, 'utf8').toString('base64'));
    }
    expect(spec.TaskTemplate.ContainerSpec.Env.some((e) => e.startsWith('API_KEY=') || e.startsWith('SVC_RECOVERY_KEY='))).toBe(false);
    expect(spec.TaskTemplate.ContainerSpec.Secrets.map((s) => s.File.Name)).toEqual(['svc.credential', 'env.API_KEY', 'env.SVC_RECOVERY_KEY']);
    // Secret names are hashes: neither the value nor the variable name shows in them.
    expect(created[0]?.Name).toBe(swarmSecretName('prj_1', 7, 'API_KEY'));
    expect(created[0]?.Name).toMatch(/^svc-s-[0-9a-f]{40}$/);
    expect(swarmSecretName('prj_1', 8, 'API_KEY')).not.toBe(created[0]?.Name);
  });

  it('hardens the task exactly as the podman runner hardens its container', () => {
    const spec = releaseServiceSpec(serviceInput);
    const argv = buildRunCommand(
      {
        projectId: 'prj_1',
        releaseId: 'rel_1',
        releaseDir: '/srv/r',
        entry: 'dist/server.mjs',
        dataDir: '/srv/d',
        databasePath: '/srv/d/db/app.db',
        env: {},
        secrets: {},
      },
      {
        image: 'img',
        name: 'n',
        port: 3000,
        hostIp: '127.0.0.1',
        network: 'svc-p-prj_1',
        limits: defaultContainerLimits,
        global: defaultPodmanGlobal,
        baseEnv: {},
      },
    ).args;
    const flag = (name: string): string | undefined => argv[argv.indexOf(name) + 1];
    const c = spec.TaskTemplate.ContainerSpec;
    expect(argv).toContain('--read-only');
    expect(c.ReadOnly).toBe(true);
    expect(argv).toContain('--cap-drop=ALL');
    expect(c.CapabilityDrop).toEqual(['ALL']);
    expect(argv).toContain('--init');
    expect(c.Init).toBe(true);
    expect(c.User).toBe(flag('--user'));
    expect(String(spec.TaskTemplate.Resources.Limits.Pids)).toBe(flag('--pids-limit'));
    expect(`${spec.TaskTemplate.Resources.Limits.MemoryBytes / 1024 / 1024}m`).toBe(flag('--memory'));
    expect(String(spec.TaskTemplate.Resources.Limits.NanoCPUs / 1e9)).toBe(flag('--cpus'));
    expect(c.Ulimits.map((u) => `${u.Name}=${u.Soft}:${u.Hard}`)).toEqual(argv.flatMap((a, i) => (a === '--ulimit' ? [argv[i + 1]] : [])));
    expect(flag('--tmpfs')).toBe(`/tmp:rw,noexec,nosuid,nodev,size=${(c.Mounts[2]?.TmpfsOptions?.SizeBytes ?? 0) / 1024 / 1024}m`);
    // v1.41 has no per-service no-new-privileges: the daemon must run with it.
    expect(argv).toContain('--security-opt=no-new-privileges');
    expect(SWARM_DAEMON_FLAGS).toContain('--no-new-privileges');
    expect(spec.TaskTemplate.Networks).toEqual([{ Target: flag('--network') }]);
    expect(c.Dir).toBe(flag('--workdir'));
  });

  it('refuses what would break a hardening rule', () => {
    expect(() => releaseServiceSpec({ ...serviceInput, image: 'localhost/svc-swarm-node:latest' })).toThrow(/pinned by digest/);
    expect(() => releaseServiceSpec({ ...serviceInput, limits: { ...defaultContainerLimits, user: '0:0' } })).toThrow(/non-root/);
    expect(() => releaseServiceSpec({ ...serviceInput, artifactUrl: 'http://svc.example.com/a' })).toThrow(/https/);
    expect(() => releaseServiceSpec({ ...serviceInput, artifactUrl: 'http://203.0.113.7/a' })).toThrow(/https/);
    expect(() => releaseServiceSpec({ ...serviceInput, artifactUrl: 'http://172.32.0.1/a' })).toThrow(/https/);
    expect(() => releaseServiceSpec({ ...serviceInput, drainMs: 600_000 })).toThrow(/drain window/);
    expect(() => releaseServiceSpec({ ...serviceInput, artifactUrl: 'https://u:p@svc.example.com/a' })).toThrow(/credentials/);
    expect(() => releaseServiceSpec({ ...serviceInput, databaseFile: '../etc/passwd' })).toThrow(/inside the data volume/);
    expect(() => releaseServiceSpec({ ...serviceInput, nodeId: 'a b' })).toThrow(/node id/);
    expect(() => releaseServiceSpec({ ...serviceInput, entry: '../x.js' })).toThrow();
    expect(() => releaseServiceSpec({ ...serviceInput, env: { PATH: '/x' } })).toThrow(/reserved/);
    expect(() => releaseServiceSpec({ ...serviceInput, secrets: [{ name: 'LD_PRELOAD', secretId: 'i', secretName: 'n' }] })).toThrow(/reserved/);
    expect(() => releaseServiceSpec({ ...serviceInput, secrets: [{ name: 'SVC_ARTIFACT_URL', secretId: 'i', secretName: 'n' }] })).toThrow(
      /reserved by the platform/,
    );
    expect(() => releaseServiceSpec({ ...serviceInput, secrets: [...serviceInput.secrets, ...serviceInput.secrets] })).toThrow(/twice/);
    expect(() => releaseServiceSpec({ ...serviceInput, replicas: 0 })).toThrow(/Replicas/);
    expect(() => swarmHealthCheck({ path: 'healthz', timeoutMs: 1000 })).toThrow(/health path/);
    expect(() => swarmHealthCheck({ path: '/h z', timeoutMs: 1000 })).toThrow(/health path/);
  });

  it('takes plain http only on a loopback or private link, and passes the drain window to the entrypoint', () => {
    for (const url of ['http://127.0.0.1:7071/a', 'http://10.213.5.1:41234/a', 'http://172.16.0.9/a', 'http://192.168.1.2/a', 'http://[fd00::1]/a']) {
      expect(releaseServiceSpec({ ...serviceInput, artifactUrl: url }).TaskTemplate.ContainerSpec.Env).toContain(`SVC_ARTIFACT_URL=${url}`);
    }
    const env = releaseServiceSpec({ ...serviceInput, drainMs: 2_000 }).TaskTemplate.ContainerSpec.Env;
    expect(env).toContain('SVC_DRAIN_MS=2000');
    expect(releaseServiceSpec(serviceInput).TaskTemplate.ContainerSpec.Env.some((e) => e.startsWith('SVC_DRAIN_MS='))).toBe(false);
  });

  it('hashes project ids that do not fit a swarm name', () => {
    const long = 'p'.repeat(80);
    expect(swarmServiceName(long, 'app')).toMatch(/^svc-ah-[0-9a-f]{32}$/);
    expect(swarmServiceName('a.b', 'app')).toMatch(/^svc-ah-[0-9a-f]{32}$/);
    expect(swarmServiceName(long, 'app')).not.toBe(swarmServiceName(`${long}x`, 'app'));
  });
});
