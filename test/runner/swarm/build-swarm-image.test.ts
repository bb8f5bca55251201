// The swarm base image built for real and run as a one-off swarm job the way tasks run it (read-only
// root, tmpfs /tmp, app user): node works, @svc-dev/svc/sqlite opens an in-memory database through the
// platform package's own better-sqlite3 build, @svc-dev/svc/runtime resolves from a release that links
// node_modules/@svc-dev/svc → /svc/platform, and there is no shell. A second build from the same inputs finds
// the image by its inputs label instead of building it again.
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTRYPOINT_SHIM, buildSwarmImage } from '../../../runner/swarm/build-swarm-image.js';
import { IMAGE_INPUTS_LABEL } from '../../../runner/swarm/swarm-image-inputs.js';
import { createEngineClient, type EngineClient } from '../../../runner/swarm/engine-client.js';
import type { SwarmTask } from '../../../runner/swarm/engine-schemas.js';
import { startSwarmEngine, swarmEngineGate, type SwarmEngine } from '../../support/swarm-engine.js';

const gate = swarmEngineGate('swarm base image');
const LABELS = { 'svc.test': 'swarm-image' };

// Runs inside the image: CommonJS `node -e`, then the release's ES module through a dynamic import.
const probe = `
const fs = require('fs');
const Database = require('/svc/platform/dist/src/runtime/sqlite.js').default;
const direct = new Database(':memory:').prepare('select 41 + 1 as n').get().n;
fs.mkdirSync('/tmp/release/node_modules/@svc-dev', { recursive: true });
fs.symlinkSync('/svc/platform', '/tmp/release/node_modules/@svc-dev/svc');
fs.writeFileSync('/tmp/release/main.mjs', [
  "import Database from '@svc-dev/svc/sqlite';",
  "import * as runtime from '@svc-dev/svc/runtime';",
  "const db = new Database(':memory:');",
  "db.exec('create table t (v text)'); db.prepare('insert into t values (?)').run('x');",
  "export default { linked: db.prepare('select count(*) as c from t').get().c, runtimeExports: Object.keys(runtime).length };",
].join('\\n'));
import('/tmp/release/main.mjs').then(({ default: release }) => {
  const report = {
    direct, ...release, uid: process.getuid(), gid: process.getgid(),
    shell: ['/bin/sh', '/bin/bash', '/usr/bin/sh'].filter((p) => fs.existsSync(p)),
    shim: fs.readFileSync('/svc/swarm-entrypoint.mjs', 'utf8'),
    devDependency: fs.existsSync('/svc/platform/node_modules/vitest'),
  };
  console.log('OK ' + JSON.stringify(report));
});
`;

describe.skipIf(gate.skip)('swarm base image', () => {
  let engine: SwarmEngine;
  let client: EngineClient;
  let imageId: string;
  let buildSeconds = 0;

  beforeAll(async () => {
    gate.assertPresent();
    engine = await startSwarmEngine();
    client = createEngineClient({ dockerHost: engine.dockerHost });
    const started = Date.now();
    ({ imageId } = await buildSwarmImage(client, { repository: 'svc-test/swarm-node', tag: 'test', log: (line) => console.log(line) }));
    buildSeconds = (Date.now() - started) / 1000;
  }, 300_000);
  afterAll(() => engine?.stop(), 60_000);

  it('is imported under its name with the app user and no registry digest', async () => {
    const image = await new Docker({ socketPath: engine.socketPath }).getImage(imageId).inspect();
    console.log(`swarm image built in ${buildSeconds.toFixed(1)} s, ${(image.Size / 1024 / 1024).toFixed(0)} MiB`);
    expect(image.Id).toBe(imageId);
    expect(image.Config.User).toBe('10001:10001');
    expect(image.RepoTags).toEqual(['svc-test/swarm-node:test']);
    expect(image.RepoDigests).toEqual([]);
    expect(image.Config.Labels?.[IMAGE_INPUTS_LABEL]).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is reused by a second build from the same inputs: same id, no new image, fast', async () => {
    const before = (await client.findImages({})).map((i) => i.id);
    const started = Date.now();
    const again = await buildSwarmImage(client, { repository: 'svc-test/swarm-node', tag: 'test' });
    const seconds = (Date.now() - started) / 1000;
    console.log(`swarm image reused in ${seconds.toFixed(1)} s (built in ${buildSeconds.toFixed(1)} s)`);
    expect(again).toEqual({ imageId, reused: true });
    expect((await client.findImages({})).map((i) => i.id)).toEqual(before);
    expect(seconds).toBeLessThan(buildSeconds / 2);
  }, 120_000);

  it('runs as a swarm job: sqlite through svc, @svc-dev/svc/runtime from a linked release, user 10001, no shell', async () => {
    const id = await client.createService({
      Name: 'svc-test-image-probe',
      Labels: LABELS,
      TaskTemplate: {
        ContainerSpec: {
          Image: imageId,
          Labels: LABELS,
          Command: ['/usr/bin/node'],
          Args: ['-e', probe],
          Env: [],
          Dir: '/tmp',
          User: '10001:10001',
          ReadOnly: true,
          Init: true,
          CapabilityDrop: ['ALL'],
          CapabilityAdd: [],
          Ulimits: [{ Name: 'nofile', Soft: 1024, Hard: 1024 }],
          Mounts: [{ Type: 'tmpfs', Target: '/tmp', TmpfsOptions: { SizeBytes: 64 * 1024 * 1024, Mode: 0o1777 } }],
          Secrets: [],
          StopGracePeriod: 1_000_000_000,
          StopSignal: 'SIGTERM',
        },
        Resources: { Limits: { NanoCPUs: 1_000_000_000, MemoryBytes: 256 * 1024 * 1024, Pids: 100 } },
        RestartPolicy: { Condition: 'none', Delay: 0, MaxAttempts: 0, Window: 0 },
        Placement: { Constraints: [] },
        Networks: [],
        ForceUpdate: 0,
      },
      Mode: { ReplicatedJob: { MaxConcurrent: 1, TotalCompletions: 1 } },
      EndpointSpec: { Mode: 'dnsrr', Ports: [] },
    });
    let task: SwarmTask | undefined;
    for (let waited = 0; waited < 60_000; waited += 250) {
      task = (await client.listTasks({ service: id })).find((t) => ['complete', 'failed', 'rejected'].includes(t.Status.State));
      if (task) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const logs = await client.serviceLogs(id, { tail: 50 });
    expect(task?.Status, logs).toMatchObject({ State: 'complete', ContainerStatus: { ExitCode: 0 } });
    const line = logs.split('\n').find((l) => l.startsWith('OK '));
    expect(line, logs).toBeDefined();
    expect(JSON.parse(line!.slice(3))).toEqual({
      direct: 42,
      linked: 1,
      runtimeExports: expect.any(Number),
      uid: 10001,
      gid: 10001,
      shell: [],
      shim: ENTRYPOINT_SHIM,
      devDependency: false,
    });
    expect(JSON.parse(line!.slice(3)).runtimeExports).toBeGreaterThan(0);
    await client.removeService(id);
  }, 120_000);
});
