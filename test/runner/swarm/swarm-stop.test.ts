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

    const ended = (await client.listTasks({ service })).find((t) => t.ID === task!.ID);
    expect(ended?.Status).toMatchObject({ State: 'shutdown', ContainerStatus: { ExitCode: 0 } });
    // The window did start (Docker's SIGTERM), and the app got its own SIGTERM, not a SIGKILL.
    const lines = await eventually(() => {
      const found = plane.plane.releases.driver.logs.read(projectId, { limit: 1000 }).map((e) => e.line);
      return found.some((l) => l.includes('stop requested')) ? found : null;
    }, 10_000);
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`svc-entrypoint: stop requested: the app keeps serving for ${DRAIN_MS} ms`)));
  }, 120_000);
});

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
