// kill -9 of the control plane during a deploy under SVC_DRIVER=swarm, then a restart: the project's
// swarm service ends on exactly one release — the new one when the kill came after activation, the
// previous one otherwise — and svc tells the truth about it: the release rows, the project's status,
// what answers through the ingress and the release the service runs agree, and no job service, canary
// or secret of a dead generation is left. Killed at the pipeline's failpoints and, from outside, the
// moment the service update reached the engine (swarm goes on with it alone). Then a task killed under
// a running control plane (kill -9 of its process, docker kill): swarm restores it, svc logs the exit
// and routes to the new task.
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReleaseListResponse } from '../../src/releases/contract.js';
import { swarmServiceName } from '../../runner/swarm/swarm-names.js';
import { specGeneration } from '../../runner/swarm/service-control.js';
import { bootstrapAccount, type TestAccount } from '../support/account.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';
import { swarmEngineGate } from '../support/swarm-engine.js';
import { eventually, packFixture, removeDataDir, type Artifact } from '../releases/release-support.js';
import { enginePost, orphans, projectInSwarm, startSwarmSetup, taskContainer, type SwarmSetup } from './support/swarm-setup.js';
import { postRelease } from '../support/post-release.js';

const gate = swarmEngineGate('kill -9 of the control plane during a swarm deploy');

type KillPoint = 'update-sent' | 'after-start' | 'after-health' | 'after-activate' | 'after-stop' | 'after-migrate';

describe.skipIf(gate.skip)('kill -9 of the control plane during a swarm deploy', () => {
  let swarm: SwarmSetup;
  let work: string;
  let dataDir: string;
  let port: number;
  let platform: StartedPlatform | undefined;
  let account: TestAccount;
  let projectId: string;
  let slug: string;
  let builds = 0;
  const timings: string[] = [];

  const start = async (failpoint?: string): Promise<StartedPlatform> => {
    platform = await startPlatform({
      dataDir,
      ...(port ? { port } : {}),
      readyTimeoutMs: 120_000,
      env: { ...swarm.env, SVC_LOG_LEVEL: 'warn', ...(failpoint ? { SVC_FAILPOINT: failpoint } : {}) },
    });
    port = platform.port;
    return platform;
  };
  const get = async <T>(path: string): Promise<T> => account.api<T>('GET', path);
  const upload = (artifact: Artifact, key: string): Promise<Response> => postRelease(platform!.url, account.accessToken, projectId, artifact, { key });
  /** GET through the ingress by the project's host (the ingress process outlives a killed control plane). */
  const viaIngress = async (path: string): Promise<{ status: number; body: string }> => {
    const res = await request(`http://127.0.0.1:${port}${path}`, { headers: { host: `${slug}.localhost:${port}` }, headersTimeout: 5_000, bodyTimeout: 5_000 });
    return { status: res.statusCode, body: await res.body.text() };
  };
  const served = async (): Promise<{ release: string; version: number } | null> => {
    const res = await viaIngress('/').catch(() => null);
    return res?.status === 200 ? (JSON.parse(res.body) as { release: string; version: number }) : null;
  };
  /** A code-only change of the healthy app (a new digest, no new migration: a blue-green deploy). */
  const codeOnly = () => packFixture('healthy', work, async (dir) => void (await writeFile(join(dir, 'dist', 'build.txt'), `build ${++builds}\n`)));

  /**
   * Everything svc says and what really serves agree on `expected`: no candidate row, the project's
   * active release, the ingress answering (several times in a row) from it, the swarm service's
   * release label and its one serving task, the data written at the start, no orphans.
   */
  const assertTruth = async (expected: string, context: string): Promise<void> => {
    const settled = Date.now();
    const list = await eventually(async () => {
      const l = await get<ReleaseListResponse>(`/api/projects/${projectId}/releases`);
      return l.releases.some((r) => r.status === 'candidate') ? null : l;
    }, 60_000);
    expect(
      list.releases.filter((r) => r.status === 'active').map((r) => r.id),
      context,
    ).toEqual([expected]);
    const { project } = await get<{ project: { status: { state: string; activeReleaseId: string | null } } }>(`/api/projects/${projectId}`);
    expect(project.status, context).toEqual(expect.objectContaining({ state: 'active', activeReleaseId: expected }));
    await eventually(async () => {
      for (let i = 0; i < 5; i++) if ((await served())?.release !== expected) return null;
      return true;
    }, 90_000).catch((error: unknown) => {
      throw new Error(`${context}: the ingress does not serve ${expected} (${String(error)})\n${platform?.logs().slice(-3000)}`);
    });
    const state = await eventually(async () => {
      const s = await projectInSwarm(swarm.client, projectId);
      return s.app?.release === expected &&
        s.serving.length === 1 &&
        s.pending === 0 &&
        s.serving[0]!.generation === s.app.generation &&
        orphans(s).length === 0
        ? s
        : null;
    }, 60_000).catch(async (error: unknown) => {
      const logs = await get<{ entries: { line: string }[] }>(`/api/projects/${projectId}/logs?stream=system&limit=30`).catch(() => ({ entries: [] }));
      throw new Error(
        `${context}: the swarm does not settle on ${expected} (${String(error)}): ${JSON.stringify(await projectInSwarm(swarm.client, projectId))}\nsvc logs:\n${logs.entries.map((e) => e.line).join('\n')}\n${platform?.logs().slice(-3000)}`,
      );
    });
    expect(state.app).toMatchObject({ release: expected, replicas: 1 });
    const notes = JSON.parse((await viaIngress('/notes')).body) as { notes: { text: string }[] };
    expect(
      notes.notes.map((n) => n.text),
      context,
    ).toContain('kept');
    timings.push(`${context}: settled ${((Date.now() - settled) / 1000).toFixed(1)} s after the restart was ready`);
  };

  /** Deploy `artifact` on a control plane that dies at `point`; restart; the truth must be `outcome`. */
  const killDuring = async (point: KillPoint, artifact: Artifact, outcome: 'rolled back' | 'converged'): Promise<void> => {
    const prior = (await get<{ project: { status: { activeReleaseId: string } } }>(`/api/projects/${projectId}`)).project.status.activeReleaseId;
    const generationBefore = (await projectInSwarm(swarm.client, projectId)).app?.generation ?? 0;
    await platform?.stop();
    const p = await start(point === 'update-sent' ? undefined : point);
    const exited = new Promise<NodeJS.Signals | null>((resolve) => p.child.once('exit', (_code, signal) => resolve(signal)));
    const began = Date.now();
    const uploading = upload(artifact, `kill-${point}-${builds}`).catch(() => null);
    let atKill = '';
    if (point === 'update-sent') {
      // From outside: the first moment the engine holds the new generation's spec.
      await eventually(
        async () => (specGeneration((await swarm.client.inspectService(swarmServiceName(projectId, 'app')))?.spec) ?? 0) > generationBefore,
        120_000,
      );
      p.child.kill('SIGKILL');
      const s = await projectInSwarm(swarm.client, projectId);
      atKill = ` (at the kill: generation ${s.app?.generation}, serving generations ${s.serving.map((t) => t.generation).join(',')})`;
    }
    expect(await exited).toBe('SIGKILL');
    await uploading;
    const killedAfter = Date.now() - began;
    // Swarm and the ingress go on alone meanwhile: what answers while no control plane runs.
    const downtime = await served();
    await start();
    const releases = await get<ReleaseListResponse>(`/api/projects/${projectId}/releases`);
    const newest = releases.releases[0]!;
    expect(newest.id).not.toBe(prior);
    const expected = outcome === 'converged' ? newest.id : prior;
    await assertTruth(expected, `killed at ${point}`);
    const after = await get<ReleaseListResponse>(`/api/projects/${projectId}/releases`);
    const interrupted = after.releases.find((r) => r.id === newest.id)!;
    if (outcome === 'rolled back')
      expect(interrupted).toMatchObject({ status: 'failed', failure: expect.objectContaining({ code: 'SVC_RELEASE_INTERRUPTED' }) });
    else expect(interrupted.status).toBe('active');
    timings.push(
      `killed at ${point} ${(killedAfter / 1000).toFixed(1)} s into the deploy${atKill}; while down the ingress answered ${downtime ? `release ${downtime.release === prior ? 'prior' : downtime.release === newest.id ? 'new' : downtime.release}` : 'nothing'}; ${outcome}`,
    );
  };

  beforeAll(async () => {
    gate.assertPresent();
    swarm = await startSwarmSetup();
    timings.push(`base image built in ${swarm.imageSeconds.toFixed(1)} s`);
    work = await mkdtemp(join(tmpdir(), 'svc-swarm-kill-art-'));
    dataDir = await mkdtemp(join(tmpdir(), 'svc-swarm-kill-'));
    const p = await start();
    account = await bootstrapAccount(p.url);
    ({ id: projectId, slug } = (
      await account.api<{ project: { id: string; slug: string } }>('POST', '/api/projects', { name: 'Swarm kill', slug: `swarm-kill-${process.pid}` })
    ).project);
    const res = await upload(await packFixture('healthy', work), 'v1-key-0001');
    expect(res.status, await res.clone().text()).toBe(201);
    const note = await request(`http://127.0.0.1:${port}/notes`, {
      method: 'POST',
      headers: { host: `${slug}.localhost:${port}` },
      body: JSON.stringify({ text: 'kept' }),
    });
    expect(note.statusCode, await note.body.text()).toBe(201);
  }, 300_000);

  afterAll(async () => {
    console.log(timings.join('\n'));
    await platform?.stop();
    await swarm?.stop();
    if (dataDir) await removeDataDir(dataDir);
    if (work) await removeDataDir(work);
  }, 120_000);

  it('killed the moment the service update reached the engine: rolled back to the previous release', async () => {
    await killDuring('update-sent', await codeOnly(), 'rolled back');
  }, 300_000);

  it.each(['after-start', 'after-health'] as const)(
    'killed at %s: rolled back to the previous release',
    async (point) => {
      await killDuring(point, await codeOnly(), 'rolled back');
    },
    300_000,
  );

  it('killed at after-activate: the new release is active and serves', async () => {
    await killDuring('after-activate', await codeOnly(), 'converged');
  }, 300_000);

  it.each(['after-stop', 'after-migrate'] as const)(
    'killed at %s of a migration deploy: the previous release serves its data again',
    async (point) => {
      await killDuring(point, await packFixture('healthy-v2', work), 'rolled back');
    },
    300_000,
  );

  describe('a task killed under a running control plane', () => {
    /** The serving task, its container's processes on the host (dockerd shares our pid namespace). */
    const servingTask = async () => {
      const s = await eventually(async () => {
        const now = await projectInSwarm(swarm.client, projectId);
        return now.serving.length === 1 ? now : null;
      }, 60_000);
      return s.serving[0]!;
    };
    const exitLines = async (): Promise<string[]> =>
      (await get<{ entries: { stream: string; line: string }[] }>(`/api/projects/${projectId}/logs?stream=system&limit=500`)).entries
        .map((e) => e.line)
        .filter((line) => line.startsWith('exited ('));

    const restored = async (how: string, kill: (task: { containerId: string }) => Promise<void>): Promise<void> => {
      if (!platform || platform.child.exitCode !== null || platform.child.signalCode !== null) await start();
      const active = (await get<{ project: { status: { activeReleaseId: string } } }>(`/api/projects/${projectId}`)).project.status.activeReleaseId;
      const before = await servingTask();
      const exitsBefore = (await exitLines()).length;
      const killedAt = Date.now();
      await kill(before);
      const after = await eventually(async () => {
        const task = await servingTask();
        return task.id !== before.id ? task : null;
      }, 60_000);
      await eventually(async () => ((await exitLines()).length > exitsBefore ? true : null), 30_000);
      await eventually(async () => {
        for (let i = 0; i < 5; i++) if ((await served())?.release !== active) return null;
        return true;
      }, 60_000);
      timings.push(
        `${how}: a new task (port ${before.port} → ${after.port}) served through the ingress ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill`,
      );
      await assertTruth(active, how);
    };

    it('kill -9 of the app process: swarm restarts the task, svc logs the exit and routes to the new task', async () => {
      await restored('kill -9 of the app process', async ({ containerId }) => {
        const { pid: init } = await taskContainer(swarm.engine.socketPath, containerId);
        // The app is the node process running the release's entry under the entrypoint (init → entrypoint → app).
        const app = processesUnderPid(init).find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('dist/server.mjs'));
        expect(app, 'the app process on the host').toBeDefined();
        process.kill(app!, 'SIGKILL');
      });
    }, 180_000);

    it('docker kill through the engine API: the same', async () => {
      await restored('docker kill', async ({ containerId }) => {
        const status = await enginePost(swarm.engine.socketPath, `/containers/${containerId}/kill`);
        expect(status).toBe(204);
      });
    }, 180_000);
  });
});

/** `pid` and its descendants. */
function processesUnderPid(pid: number): number[] {
  const children = (p: number): number[] => {
    try {
      return readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return [];
    }
  };
  const found = [pid];
  for (let i = 0; i < found.length; i++) found.push(...children(found[i]!));
  return found;
}
