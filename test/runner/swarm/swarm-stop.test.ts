// The driver's stop when nothing is routed any more (migration deploys, restore-data rollbacks), on a
// real single-node swarm with a long lame-duck window: the scale-down's SIGTERM starts the window, the
// driver's second SIGTERM to the task's container ends it, so the app shuts down on its own (exit 0,
// no SIGKILL) in a fraction of the window. A served app's cutover keeps the window.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineClient } from '../../../runner/swarm/engine-client.js';
import { lameDucks } from '../../../runner/swarm/service-control.js';
import { swarmServiceName } from '../../../runner/swarm/swarm-names.js';
import { swarmEngineGate, type SwarmEngine } from '../../support/swarm-engine.js';
import { eventually, packFixture, type Plane } from '../../releases/release-support.js';
import { startSwarmPlane, stopSwarmPlane } from './swarm-plane.js';
import { swarmTaskSchema } from '../../../runner/swarm/engine-schemas.js';
import { engineCall } from '../../support/swarm-engine-daemon.js';

const gate = swarmEngineGate('swarm stop');
const DRAIN_MS = 30_000;

describe.skipIf(gate.skip)('swarm stop with nothing routed', () => {
  let engine: SwarmEngine;
  let client: EngineClient;
  let plane: Plane;
  let work: string;

  beforeAll(async () => {
    gate.assertPresent();
    ({ engine, client, plane, work } = await startSwarmPlane({ workPrefix: 'svc-swarm-stop-', buildImage: true, fixedEndpoint: false, drainMs: DRAIN_MS }));
    const res = await plane.upload(await packFixture('healthy', work));
    expect((res.json() as { release: { status: string } }).release.status, res.body).toBe('active');
  }, 240_000);

  afterAll(() => stopSwarmPlane({ plane, engine, work }), 120_000);

  it('ends the lame-duck window with a second SIGTERM: the app exits 0 long before the window', async () => {
    const projectId = plane.project.id;
    const service = swarmServiceName(projectId, 'app');
    const [task] = await client.listTasks({ service, desiredState: 'running' });
    expect(await client.localNodeId()).toBe(engine.nodeId);

    const started = Date.now();
    await plane.plane.releases.driver.stop(projectId);
    const seconds = (Date.now() - started) / 1000;
    console.log(`stop with a ${DRAIN_MS / 1000} s lame-duck window took ${seconds.toFixed(1)} s`);
    expect(seconds).toBeLessThan(DRAIN_MS / 1000 / 3);

    // A scale-down's task record may be gone already; the engine's event log keeps the container's exit.
    const container = task!.Status.ContainerStatus?.ContainerID;
    expect(container).toBeTruthy();
    const dies = await eventually(async () => {
      const found = await containerDeaths(engine.socketPath, started, container!);
      return found.length > 0 ? found : null;
    }, 10_000);
    expect(dies).toEqual(['0']);
    // The window did start (Docker's SIGTERM), and the app got its own SIGTERM, not a SIGKILL.
    const lines = await eventually(() => {
      const found = plane.plane.releases.driver.logs.read(projectId, { limit: 1000 }).map((e) => e.line);
      return found.some((l) => l.includes('stop requested')) ? found : null;
    }, 10_000);
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`svc-entrypoint: stop requested: the app keeps serving for ${DRAIN_MS} ms`)));
  }, 120_000);
});

/** Exit codes of `container`'s `die` events since `sinceMs` (the engine answers at once: `until` is now). */
async function containerDeaths(socketPath: string, sinceMs: number, container: string): Promise<string[]> {
  const filters = encodeURIComponent(JSON.stringify({ type: ['container'], event: ['die'], container: [container] }));
  const since = Math.floor(sinceMs / 1000) - 1;
  const until = Math.ceil(Date.now() / 1000) + 1;
  const res = await engineCall(socketPath, 'GET', `/events?since=${since}&until=${until}&filters=${filters}`);
  expect(res.status, res.body).toBe(200);
  return res.body
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => String((JSON.parse(line) as { Actor?: { Attributes?: Record<string, string> } }).Actor?.Attributes?.exitCode));
}

describe('lameDucks', () => {
  const task = (id: string, node: string, desired: 'running' | 'shutdown' | 'remove', state: 'running' | 'shutdown', container?: string) =>
    swarmTaskSchema.parse({
      ID: id,
      ServiceID: 's',
      NodeID: node,
      DesiredState: desired,
      Spec: {},
      Status: { State: state, ...(container ? { ContainerStatus: { ContainerID: container } } : {}) },
    });

  it('names the containers on this node that Docker is stopping', () => {
    const tasks = [
      task('a', 'n1', 'shutdown', 'running', 'c1'),
      task('b', 'n2', 'shutdown', 'running', 'c2'),
      task('c', 'n1', 'running', 'running', 'c3'),
      task('d', 'n1', 'shutdown', 'shutdown', 'c4'),
      task('e', 'n1', 'shutdown', 'running'),
      task('f', 'n1', 'remove', 'running', 'c5'),
    ];
    // A scale-down wants its tasks removed, a rollback or update shut down.
    expect(lameDucks(tasks, 'n1')).toEqual(['c1', 'c5']);
    expect(lameDucks(tasks, null)).toEqual([]);
  });
});
