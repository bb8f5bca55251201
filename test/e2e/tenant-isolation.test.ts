// Tenant isolation, proven end to end: the real control plane runs two tenants' apps; tenant B's
// hostile-app attacks tenant A's victim-app, the control plane and the host with everything it is
// told (real host paths, pids, upstream address), and every attack must fail while B keeps working
// inside its own confinement. Runs under the platform's default runner, under SVC_RUNNER=container
// and under SVC_DRIVER=swarm (a throwaway swarm: the victim's data is its volume on the node, its
// processes are its task's, its upstream the node address and published port).
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { networkInterfaces, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTree } from '../../cli/build-tree.js';
import { buildNodeImage, DEFAULT_CONTAINER_IMAGE } from '../../runner/container/build-node-image.js';
import { packArtifact, readDeployConfig } from '../../src/artifacts/index.js';
import { bootstrapAccount, type TestAccount } from '../support/account.js';
import { repoRoot } from '../support/repo-root.js';
import { commandComponent, requireComponents, type ComponentGate } from '../support/require-components.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';
import { alive } from '../support/process-alive.js';
import { swarmEngineGate } from '../support/swarm-engine.js';
import { swarmVolumeName } from '../../runner/swarm/swarm-names.js';
import { TASK_APP_PORT } from '../../runner/swarm/release-launch.js';
import { projectInSwarm, startSwarmSetup, taskContainer, volumePath, type SwarmSetup } from './support/swarm-setup.js';

interface Attack {
  name: string;
  succeeded: boolean;
  detail: string;
}
interface Deployed {
  id: string;
  slug: string;
  dataDir: string;
}
/** What the control plane recorded about a running app (releases.run_record). */
interface RunRecord {
  host: string;
  port: number;
  pid?: number;
  containerId?: string;
}

const podmanArgs = (...args: string[]): [string, ...string[]] => ['podman', '--runtime', 'runc', ...args];
/** Run podman (runc, as the platform does) and return its stdout; throws on a non-zero exit. */
const podman = (...args: string[]): string => execFileSync('podman', podmanArgs(...args).slice(1), { encoding: 'utf8' });
/** Where the victim really lives under a runner: its data directory, its processes, its addresses. */
interface VictimFacts {
  dataDir: string;
  pids: number[];
  addrs: string[];
  /** The port the victim listens on inside its confinement, when it differs from the recorded (published) one. */
  innerPort?: number;
  /** The attacker's own addresses: on the inner port it reaches itself there (it listens on that port too). */
  attackerAddrs?: string[];
}

interface Runner {
  name: string;
  env: Record<string, string>;
  container: boolean;
  gate(): ComponentGate;
  /** Starts what the runner needs (before the platform) and returns its extra environment. */
  prepare?(): Promise<Record<string, string>>;
  /** The victim as this runner runs it (default: the project data dir, processes holding its secret, podman addresses). */
  victim?(project: Deployed, record: RunRecord, secret: string, attacker: Deployed): Promise<VictimFacts>;
  teardown?(): Promise<void>;
}

let swarm: SwarmSetup | undefined;
const RUNNERS: Runner[] = [
  // SVC_RUNNER unset: whatever the platform isolates apps with by default, the bubblewrap sandbox with
  // its own network namespace through slirp4netns, so both must really work on this host.
  {
    name: 'the default runner',
    env: {},
    container: false,
    gate: () =>
      requireComponents('tenant isolation under the default runner', [
        commandComponent('bwrap', ['bwrap', '--ro-bind', '/', '/', '--unshare-all', 'true']),
        commandComponent('slirp4netns', ['slirp4netns', '--version']),
      ]),
  },
  {
    name: 'SVC_RUNNER=container',
    env: { SVC_RUNNER: 'container', SVC_CONTAINER_IMAGE: DEFAULT_CONTAINER_IMAGE },
    container: true,
    gate: () => requireComponents('tenant isolation under SVC_RUNNER=container', [commandComponent('podman', podmanArgs('info'))]),
  },
  // Each tenant a swarm service on its own overlay network, published in host mode on the node.
  {
    name: 'SVC_DRIVER=swarm',
    env: {},
    container: false,
    gate: () => swarmEngineGate('tenant isolation under SVC_DRIVER=swarm'),
    async prepare() {
      swarm = await startSwarmSetup();
      return swarm.env;
    },
    async victim(project, _record, secret, attacker) {
      const { engine, client } = swarm!;
      const container = async (of: Deployed) => {
        const [task] = (await projectInSwarm(client, of.id)).serving;
        if (!task) throw new Error(`no serving task of ${of.id}`);
        return taskContainer(engine.socketPath, task.containerId);
      };
      const victimTask = await container(project);
      return {
        dataDir: await volumePath(engine.socketPath, swarmVolumeName(project.id)),
        pids: [...new Set([victimTask.pid, ...hostPidsWithEnv(`VICTIM_SECRET=${secret}`)])],
        addrs: victimTask.addresses,
        innerPort: TASK_APP_PORT,
        attackerAddrs: (await container(attacker)).addresses,
      };
    },
    teardown: async () => swarm?.stop(),
  },
];

/** Every attack hostile-app knows; a report missing one of them proves nothing about it. */
const ATTACKS = [
  'read-master-key',
  'read-control-db',
  'list-other-projects',
  'read-victim-data',
  'write-victim-data',
  'write-platform-dir',
  'write-host-tmp',
  'own-env-platform-vars',
  'read-foreign-environ',
  'environ-victim-secret',
  'environ-platform-vars',
  'see-other-processes',
  'read-maps-victim',
  'read-maps-platform',
  'read-mem-victim',
  'read-mem-platform',
  'signal0-victim',
  'signal0-platform',
  'connect-victim',
  'sigterm-victim',
  'sigterm-platform',
];

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const succeeded = (attacks: Attack[] | null | undefined): string[] => (attacks ?? []).filter((a) => a.succeeded).map((a) => `${a.name}: ${a.detail}`);

/** GET through the ingress by the project's public host (*.localhost may not resolve in Node). */
async function viaIngress<T>(platform: StartedPlatform, slug: string, path: string): Promise<{ status: number; json: T }> {
  const response = await request(`${platform.url}${path}`, { headers: { host: `${slug}.localhost:${platform.port}` }, headersTimeout: 30_000 });
  const text = await response.body.text();
  try {
    return { status: response.statusCode, json: JSON.parse(text) as T };
  } catch {
    throw new Error(`${slug}${path} → ${response.statusCode}: ${text.slice(0, 500)}`);
  }
}

/** Create a project for `account`, set its secrets, then build, pack and upload the fixture (waits for the release). */
async function deploy(platform: StartedPlatform, account: TestAccount, work: string, fixture: string, secrets: Record<string, string>): Promise<Deployed> {
  const { project } = await account.api<{ project: { id: string; slug: string } }>('POST', '/api/projects', {
    name: fixture,
    slug: `${fixture.split('-')[0]}-${hex(3)}`,
  });
  for (const [name, value] of Object.entries(secrets)) await account.api('PUT', `/api/projects/${project.id}/secrets/${name}`, { value });
  const appDir = join(work, `${fixture}-${project.id}`);
  await cp(join(repoRoot, 'fixtures', fixture), appDir, { recursive: true, filter: (src) => !/[/\\](dist|\.svc)$/.test(src) });
  await buildTree(join(appDir, 'src'), join(appDir, 'dist'));
  const packed = await packArtifact(appDir, { config: await readDeployConfig(appDir) });
  const response = await fetch(`${platform.url}/api/projects/${project.id}/releases`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${account.accessToken}`,
      'content-type': 'application/vnd.svc.deploy+gzip',
      'x-svc-artifact-digest': packed.digest,
      'idempotency-key': `isolation-${hex(8)}`,
    },
    body: new Uint8Array(packed.bytes),
  });
  const body = await response.text();
  if (response.status !== 201 || (JSON.parse(body) as { release?: { status?: string } }).release?.status !== 'active') {
    throw new Error(`deploying ${fixture} → ${response.status}: ${body}\nserver:\n${platform.logs().slice(-4000)}`);
  }
  return { id: project.id, slug: project.slug, dataDir: join(platform.dataDir, 'projects', project.id, 'data') };
}

function runRecord(platform: StartedPlatform, projectId: string): RunRecord {
  const db = new Database(join(platform.dataDir, 'control.db'), { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare("SELECT run_record FROM releases WHERE project_id = ? AND status = 'active'").get(projectId) as
      { run_record: string | null } | undefined;
    if (!row?.run_record) throw new Error(`no run record for ${projectId}`);
    return JSON.parse(row.run_record) as RunRecord;
  } finally {
    db.close();
  }
}

/** Host pids of node processes holding `NAME=value` in their environment: the app itself, as the host sees it. */
function hostPidsWithEnv(entry: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const argv0 = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0')[0] ?? '';
      if (basename(argv0) === 'node' && readFileSync(`/proc/${name}/environ`, 'utf8').split('\0').includes(entry)) pids.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

/** Every address the victim's container has on any podman network (empty for other runners). */
function containerAddresses(record: RunRecord): string[] {
  if (!record.containerId) return [];
  return podman('inspect', '--format', '{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}', record.containerId).split(/\s+/).filter(Boolean);
}

const hostAddresses = (): string[] =>
  Object.values(networkInterfaces())
    .flat()
    .filter((a) => a && !a.internal)
    .map((a) => a!.address);

for (const runner of RUNNERS) {
  const gate = runner.gate();

  describe.skipIf(gate.skip)(`tenant isolation under ${runner.name}`, () => {
    const marker = `iso-${hex(6)}`;
    const secrets = { victim: `victim-${hex(12)}`, hostile: `hostile-${hex(12)}`, askToken: `ask-${hex(16)}`, platformMarker: `platform-${hex(12)}` };
    const hostTmpCanary = `svc-canary-${marker}`;
    let platform: StartedPlatform;
    let work: string;
    let victim: Deployed;
    let hostile: Deployed;
    let victimPids: number[] = [];
    let victimDataDir: string;
    let victimDataBefore: string[] = [];
    let self: { wrote: boolean; readBack: boolean; ownSecretVisible: boolean; ownSecretSha256: string | null; error: string | null };
    let boot: Attack[] | null = null;
    let attacks: Attack[] = [];
    /** connect-victim again on the port the victim listens on inside its confinement (runners that publish another one). */
    let innerConnect: Attack | undefined;
    let attackerAddrs: string[] = [];

    beforeAll(async () => {
      gate.assertPresent();
      if (runner.container && spawnSync('podman', podmanArgs('image', 'exists', DEFAULT_CONTAINER_IMAGE).slice(1)).status !== 0) {
        // A fresh machine has no image yet: build it (as `npm run build:image` does) rather than skip.
        await buildNodeImage({ image: DEFAULT_CONTAINER_IMAGE });
      }
      work = await mkdtemp(join(tmpdir(), 'svc-e2e-isolation-'));
      const prepared = (await runner.prepare?.()) ?? {};
      platform = await startPlatform({
        env: { SVC_REGISTRATION: 'public', SVC_TLS_ASK_TOKEN: secrets.askToken, SVC_PLATFORM_MARKER: secrets.platformMarker, ...runner.env, ...prepared },
        readyTimeoutMs: 120_000,
      });
      // Two accounts, so two personal organizations: nothing is shared between the tenants.
      const tenantA = await bootstrapAccount(platform.url);
      const tenantB = await bootstrapAccount(platform.url);
      victim = await deploy(platform, tenantA, work, 'victim-app', { VICTIM_SECRET: secrets.victim });
      hostile = await deploy(platform, tenantB, work, 'hostile-app', { HOSTILE_OWN_SECRET: secrets.hostile });

      const record = runRecord(platform, victim.id);
      const facts: VictimFacts = (await runner.victim?.(victim, record, secrets.victim, hostile)) ?? {
        dataDir: victim.dataDir,
        pids: [...new Set([...hostPidsWithEnv(`VICTIM_SECRET=${secrets.victim}`), ...(record.pid ? [record.pid] : [])])],
        addrs: containerAddresses(record),
      };
      victimPids = facts.pids;
      victimDataDir = facts.dataDir;
      victimDataBefore = readdirSync(victimDataDir).sort();
      self = (await viaIngress<typeof self>(platform, hostile.slug, '/self')).json;
      for (let i = 0; i < 100 && boot === null; i++) {
        boot = (await viaIngress<{ boot: Attack[] | null }>(platform, hostile.slug, '/boot')).json.boot;
        if (boot === null) await new Promise((resolve) => setTimeout(resolve, 100));
      }

      writeFileSync(join('/tmp', hostTmpCanary), 'host canary\n');
      const query = new URLSearchParams({
        platformDir: platform.dataDir,
        victimDir: victimDataDir,
        victimPid: victimPids.join(','),
        platformPid: String(platform.child.pid),
        victimHost: record.host,
        victimPort: String(record.port),
        victimAddrs: facts.addrs.join(','),
        hostAddrs: hostAddresses().join(','),
        platformEnv: 'SVC_TLS_ASK_TOKEN,SVC_PLATFORM_MARKER',
        marker,
        tmpCanary: hostTmpCanary,
      });
      attacks = (await viaIngress<{ attacks: Attack[] }>(platform, hostile.slug, `/attacks?${query}`)).json.attacks;
      attackerAddrs = facts.attackerAddrs ?? [];
      if (facts.innerPort !== undefined) {
        const inner = new URLSearchParams({ victimHost: record.host, victimPort: String(facts.innerPort), victimAddrs: facts.addrs.join(',') });
        innerConnect = (await viaIngress<{ attacks: Attack[] }>(platform, hostile.slug, `/attacks?${inner}`)).json.attacks.find(
          (a) => a.name === 'connect-victim',
        );
      }
      // The control plane's SIGTERM (if permitted) goes out after the answer; give it time to land.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }, 300_000);

    afterAll(async () => {
      await platform?.stop();
      rmSync(join('/tmp', hostTmpCanary), { force: true });
      rmSync(join('/tmp', `hostile-${marker}`), { force: true });
      // Apps of this suite that outlived a killed control plane: only pids holding this run's secrets.
      for (const pid of [...hostPidsWithEnv(`VICTIM_SECRET=${secrets.victim}`), ...hostPidsWithEnv(`HOSTILE_OWN_SECRET=${secrets.hostile}`)]) {
        if (alive(pid)) process.kill(pid, 'SIGKILL');
      }
      if (runner.container) {
        for (const project of [victim, hostile].filter(Boolean)) {
          for (const name of podman('ps', '-a', '--filter', `label=svc.project=${project.id}`, '--format', '{{.Names}}').split('\n').filter(Boolean))
            podman('rm', '--force', '--time', '0', name);
        }
      }
      await runner.teardown?.();
      if (work) await rm(work, { recursive: true, force: true });
    }, 120_000);

    it('B still works inside its confinement: writes and reads its own data dir, sees its own secret', () => {
      expect(self).toMatchObject({ wrote: true, readBack: true, ownSecretVisible: true, error: null });
      expect(self.ownSecretSha256).toBe(sha256(secrets.hostile));
    });

    it('every attack B tries fails, at boot (guessing) and when handed the real targets', () => {
      expect(attacks.map((a) => a.name).sort()).toEqual([...ATTACKS].sort());
      // Each targeted attack was really attempted: the test handed it every target it needs.
      expect(attacks.filter((a) => a.detail.startsWith('not attempted'))).toEqual([]);
      expect(boot, 'the boot run finished').not.toBeNull();
      expect({ boot: succeeded(boot), targeted: succeeded(attacks) }).toEqual({ boot: [], targeted: [] });
    });

    it.runIf(runner.victim !== undefined)('B cannot connect to the port the victim listens on inside its confinement either (only to itself)', () => {
      // The attacker listens on that port too: reaching loopback or its own addresses is reaching itself.
      const reached = /^reached (.*)$/.exec(innerConnect?.detail ?? '')?.[1]?.split(', ') ?? [];
      expect(reached.length, `${innerConnect?.detail} (only four are named)`).toBeLessThan(4);
      expect(
        reached.filter((address) => !['127.0.0.1', '::1', ...attackerAddrs].includes(address)),
        innerConnect?.detail,
      ).toEqual([]);
      expect(innerConnect?.detail).not.toMatch(/^not attempted/);
    });

    it('host side: nothing of B landed in the victim data dir, the platform dir or the host /tmp', () => {
      const planted = `hostile-${marker}`;
      const landed = {
        victimDataDir: existsSync(join(victimDataDir, planted)),
        platformDataDir: existsSync(join(platform.dataDir, planted)),
        hostTmp: existsSync(join('/tmp', planted)),
      };
      expect(landed).toEqual({ victimDataDir: false, platformDataDir: false, hostTmp: false });
      expect(readdirSync(victimDataDir).sort()).toEqual(victimDataBefore);
    });

    it("host side: the control plane and the victim process survived B's signals", () => {
      expect(victimPids.length, 'the victim was found on the host').toBeGreaterThan(0);
      const after = { controlPlaneExit: platform.child.exitCode ?? platform.child.signalCode, deadVictimPids: victimPids.filter((pid) => !alive(pid)) };
      expect(after).toEqual({ controlPlaneExit: null, deadVictimPids: [] });
    });

    it('both tenants still serve through the ingress, each only its own answers', async () => {
      expect(await viaIngress(platform, hostile.slug, '/')).toMatchObject({ status: 200, json: { app: 'hostile' } });
      expect(await viaIngress(platform, victim.slug, '/secret')).toEqual({ status: 200, json: { value: secrets.victim } });
    });
  });
}
