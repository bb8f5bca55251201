// The whole release path with SVC_RUNNER=container: upload → migrate → hardened container → health →
// active, and the app's database (@svc-dev/svc/sqlite from the platform package) works inside the container.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { command } from '../../../src/core/command.js';
import { execCommand } from '../../../src/core/exec.js';
import { buildNodeImage } from '../../../runner/container/build-node-image.js';
import { projectNetworkName } from '../../../runner/container/network-args.js';
import { packFixture, removeDataDir, startPlane, type Plane } from '../../releases/release-support.js';
import { podmanGate } from './podman-gate.js';

const IMAGE = 'localhost/svc-node-test:platform';
const gate = podmanGate('platform container test');

describe.skipIf(gate.skip)('control plane with SVC_RUNNER=container', () => {
  let work: string;
  let plane: Plane;
  beforeAll(async () => {
    gate.assertPresent();
    work = await mkdtemp(join(tmpdir(), 'svc-platform-container-'));
    await buildNodeImage({ image: IMAGE });
    plane = await startPlane({ env: { SVC_RUNNER: 'container', SVC_CONTAINER_IMAGE: IMAGE } });
  }, 120_000);
  afterAll(async () => {
    await plane?.close();
    const listed = await execCommand(
      command('podman', ['--runtime', 'runc', 'ps', '-a', '--filter', `label=svc.project=${plane?.project.id}`, '--format', '{{.Names}}']),
    );
    for (const name of listed.stdout.split('\n').filter(Boolean))
      await execCommand(command('podman', ['--runtime', 'runc', 'rm', '--force', '--time', '0', name]));
    // The containers were removed behind the runner's back, so it never saw their exit: drop the network too.
    if (plane) await execCommand(command('podman', ['--runtime', 'runc', 'network', 'rm', projectNetworkName(plane.project.id)]));
    await execCommand(command('podman', ['--runtime', 'runc', 'rmi', '--force', IMAGE]));
    if (plane) await removeDataDir(plane.dataDir);
    if (work) await removeDataDir(work);
  }, 60_000);

  it('deploys the healthy fixture into a container that serves health and writes its database', async () => {
    const artifact = await packFixture('healthy', work);
    const res = await plane.upload(artifact);
    expect(res.statusCode, res.body).toBe(201);
    expect((res.json() as { release: { status: string } }).release.status).toBe('active');
    const url = plane.appUrl();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await (await fetch(`${url}/healthz`)).json()).toMatchObject({ ok: true });
    const post = await fetch(`${url}/notes`, { method: 'POST', body: JSON.stringify({ text: 'from a container' }) });
    expect(post.status).toBe(201);
    const listed = await execCommand(
      command('podman', ['--runtime', 'runc', 'ps', '--filter', `label=svc.project=${plane.project.id}`, '--format', '{{.Names}}']),
    );
    expect(listed.stdout.trim()).toMatch(/^svc-/);
  }, 90_000);
});
