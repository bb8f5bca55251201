import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppStartSpec } from '../../runner/app-runner.js';
import { checkHealth } from '../../runner/health-check.js';
import { LogStore } from '../../runner/log-store.js';
import { ProcessRunner } from '../../runner/process-runner.js';
import { Supervisor, type SupervisorEvent } from '../../runner/supervisor.js';
import { alive, appSpec, eventually, makeRoot } from './runner-helpers.js';

let root: string;
let releaseDir: string;
let runner: ProcessRunner;
const supervisors: Supervisor[] = [];
const backoff = { initialMs: 50, factor: 2, maxMs: 200, stableAfterMs: 10_000 };

beforeEach(async () => {
  ({ root, releaseDir } = await makeRoot());
  runner = new ProcessRunner({
    runsDir: join(root, 'runs'),
    logs: new LogStore({ dir: join(root, 'logs') }),
    tailPollMs: 20,
    adoptPollMs: 50,
    stopGraceMs: 1_000,
  });
});
afterEach(async () => {
  for (const s of supervisors.splice(0)) await s.stopAll(200);
  await rm(root, { recursive: true, force: true });
});

function makeSupervisor(overrides: Partial<AppStartSpec> = {}, calls: string[] = []): { supervisor: Supervisor; events: SupervisorEvent[] } {
  const events: SupervisorEvent[] = [];
  const supervisor = new Supervisor({
    runner,
    stateFile: join(root, 'supervisor.json'),
    backoff,
    onEvent: (e) => events.push(e),
    resolveSpec: async (projectId, releaseId) => {
      calls.push(`${projectId}/${releaseId}`);
      return appSpec(root, releaseDir, { releaseId, secrets: { TOKEN: `v${calls.length}` }, ...overrides });
    },
  });
  supervisors.push(supervisor);
  return { supervisor, events };
}
const healthy = async (port: number) => (await checkHealth({ host: '127.0.0.1', port, path: '/healthz', timeoutMs: 10_000 })).ok;
const savedState = () =>
  JSON.parse(readFileSync(join(root, 'supervisor.json'), 'utf8')) as { projects: Record<string, { releaseId: string; record: { pid: number } | null }> };

describe('Supervisor', () => {
  it('restarts a crashed active release on the same port with fresh secrets, and persists the new pid', async () => {
    const calls: string[] = [];
    const { supervisor, events } = makeSupervisor({}, calls);
    const first = await supervisor.start('p', 'rel_1');
    expect(await healthy(first.port)).toBe(true);
    expect(savedState().projects.p).toMatchObject({ releaseId: 'rel_1', record: { pid: first.pid } });
    await fetch(`http://127.0.0.1:${first.port}/crash`);
    const second = await eventually(() => {
      const app = supervisor.current('p');
      return app && app.pid !== first.pid ? app : null;
    });
    expect(second.port).toBe(first.port);
    expect(await healthy(second.port)).toBe(true);
    expect(events.find((e) => e.type === 'crashed')).toMatchObject({ projectId: 'p', exit: { code: 3 }, restartInMs: 50, streak: 1 });
    expect(calls).toEqual(['p/rel_1', 'p/rel_1']);
    const token = (await (await fetch(`http://127.0.0.1:${second.port}/env/TOKEN`)).json()) as { value: string };
    expect(token.value).toBe('v2');
    await eventually(() => savedState().projects.p?.record?.pid === second.pid);
  });

  it('backs off exponentially (capped) while a release keeps crashing', async () => {
    const { supervisor, events } = makeSupervisor({ entry: 'crash.mjs' });
    await supervisor.start('p', 'rel_1');
    await eventually(() => events.filter((e) => e.type === 'crashed').length >= 4, 10_000);
    await supervisor.stop('p');
    const crashes = events.filter((e) => e.type === 'crashed').slice(0, 4);
    expect(crashes.map((e) => (e.type === 'crashed' ? [e.streak, e.restartInMs] : null))).toEqual([
      [1, 50],
      [2, 100],
      [3, 200],
      [4, 200],
    ]);
    expect(supervisor.status('p')).toBeNull();
  });

  it('stop() ends supervision: no restart, removed from the durable state', async () => {
    const { supervisor, events } = makeSupervisor();
    const app = await supervisor.start('p', 'rel_1');
    expect(await healthy(app.port)).toBe(true); // its SIGTERM handler is installed
    const exit = await supervisor.stop('p');
    expect(exit).toMatchObject({ code: 0 });
    await new Promise((r) => setTimeout(r, 200));
    expect(events.some((e) => e.type === 'crashed')).toBe(false);
    expect(alive(app.pid!)).toBe(false);
    expect(savedState().projects).toEqual({});
    expect(await supervisor.stop('p')).toBeNull();
  });

  it('a restarted control plane re-adopts the running app, then restarts it when it dies', async () => {
    const { supervisor: first } = makeSupervisor();
    const app = await first.start('p', 'rel_1');
    expect(await healthy(app.port)).toBe(true);
    await first.detachAll();
    expect(alive(app.pid!)).toBe(true);

    const { supervisor: second, events } = makeSupervisor();
    await second.recover();
    expect(events[0]).toEqual({ type: 'adopted', projectId: 'p', releaseId: 'rel_1', pid: app.pid, port: app.port });
    expect(second.status('p')).toMatchObject({ state: 'running', pid: app.pid, port: app.port });
    process.kill(app.pid!, 'SIGKILL');
    const restarted = await eventually(() => {
      const current = second.current('p');
      return current && current.pid !== app.pid ? current : null;
    });
    expect(await healthy(restarted.port)).toBe(true);
    expect(events.some((e) => e.type === 'crashed')).toBe(true);
  });

  it('a restarted control plane starts the recorded release when its process is gone', async () => {
    const { supervisor: first } = makeSupervisor();
    const app = await first.start('p', 'rel_1');
    await first.detachAll();
    process.kill(-app.pid!, 'SIGKILL');
    await eventually(() => !alive(app.pid!));
    const calls: string[] = [];
    const { supervisor: second, events } = makeSupervisor({}, calls);
    await second.recover();
    expect(events.map((e) => e.type)).toEqual(['started']);
    expect(calls).toEqual(['p/rel_1']);
    const current = second.current('p')!;
    expect(current.pid).not.toBe(app.pid);
    expect(await healthy(current.port)).toBe(true);
  });

  it('supervise() replaces the previous app of the project (stopping it)', async () => {
    const { supervisor } = makeSupervisor();
    const old = await supervisor.start('p', 'rel_1');
    const candidate = await runner.start(appSpec(root, releaseDir, { releaseId: 'rel_2' }));
    await supervisor.supervise(candidate);
    expect(old.exited).not.toBeNull();
    expect(supervisor.status('p')).toMatchObject({ releaseId: 'rel_2', pid: candidate.pid });
    expect(savedState().projects.p!.releaseId).toBe('rel_2');
  });
});
