// A swarm app's output in `svc logs`, on a real single-node swarm behind a real control plane: the
// lines a task prints land in the project log (stream, release, the engine's time) and come back
// through GET /api/projects/:id/logs; a job task's output lands there too; after a control-plane
// restart the follow resumes where the log ends: the lines printed meanwhile arrive, none twice.
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { swarmEngineGate, type SwarmEngine } from '../../support/swarm-engine.js';
import { eventually, packFixture, startPlane, type Artifact, type Plane } from '../../releases/release-support.js';
import { startSwarmPlane, stopSwarmPlane } from './swarm-plane.js';

const gate = swarmEngineGate('swarm app output');

interface WireEntry {
  time: string;
  stream: string;
  releaseId: string;
  line: string;
}

describe.skipIf(gate.skip)('swarm app output in svc logs', () => {
  let engine: SwarmEngine;
  let plane: Plane;
  let work: string;
  let env: Record<string, string>;
  const art: Record<string, Artifact> = {};
  let released = '';

  const entries = async (): Promise<WireEntry[]> =>
    ((await plane.api('GET', `/api/projects/${plane.project.id}/logs?limit=10000`)).json() as { entries: WireEntry[] }).entries;
  const ticks = (all: WireEntry[]): number[] => all.flatMap((e) => (e.stream === 'stdout' && /^tick \d+$/.test(e.line) ? [Number(e.line.slice(5))] : []));

  beforeAll(async () => {
    gate.assertPresent();
    // A fixed endpoint port: the restarted control plane serves the same URL the task's spec carries.
    ({ engine, plane, work, env } = await startSwarmPlane({ workPrefix: 'svc-swarm-output-', buildImage: true, fixedEndpoint: true, drainMs: 1000 }));
    // The app prints a numbered line every 200 ms besides its start-up line.
    art.ticking = await packFixture('healthy', work, async (dir) => {
      await appendFile(join(dir, 'dist', 'server.mjs'), '\nlet tick = 0;\nsetInterval(() => console.log(`tick ${tick++}`), 200).unref();\n');
    });
    art.badMigration = await packFixture('healthy', work, async (dir) => {
      await appendFile(join(dir, 'migrations', '0001_init.sql'), '\nTHIS IS NOT SQL;\n');
    });
  }, 240_000);

  afterAll(() => stopSwarmPlane({ plane, engine, work }), 120_000);

  it('writes what the task prints into the project log, with its stream, release and time', async () => {
    const started = Date.now();
    const res = await plane.upload(art.ticking!);
    const release = (res.json() as { release: { id: string; status: string } }).release;
    expect(release.status, res.body).toBe('active');
    released = release.id;
    const all = await eventually(async () => {
      const now = await entries();
      return ticks(now).length >= 3 ? now : null;
    }, 30_000);
    const listening = all.find((e) => e.line.startsWith('healthy listening on http://0.0.0.0:3000'));
    expect(listening).toMatchObject({ stream: 'stdout', releaseId: released });
    expect(Date.parse(listening!.time)).toBeGreaterThanOrEqual(started - 5_000);
    expect(Date.parse(listening!.time)).toBeLessThanOrEqual(Date.now());
    // The entrypoint's own lines are the task's stderr.
    expect(all.filter((e) => e.stream === 'stderr').map((e) => e.line)).toContainEqual(expect.stringMatching(/^svc-entrypoint: /));
    // The driver's LogStore is what the route reads.
    expect(
      plane.plane.releases.driver.logs
        .read(plane.project.id, { stream: 'stdout', limit: 10_000 })
        .some((e) => e.line === listening!.line && e.releaseId === released),
    ).toBe(true);
  }, 120_000);

  it("writes a job task's output into the project log", async () => {
    const res = await plane.upload(art.badMigration!);
    const release = (res.json() as { release: { id: string; status: string } }).release;
    expect(release.status, res.body).toBe('failed');
    const jobLines = (await entries()).filter((e) => /^\[[a-z-]+ job\] /.test(e.line));
    expect(jobLines.length, JSON.stringify(jobLines)).toBeGreaterThan(0);
    expect(jobLines.map((e) => e.line)).toContainEqual(expect.stringMatching(/^\[[a-z-]+ job\] svc-entrypoint: job j[0-9a-f]+ failed: /));
    expect(jobLines.find((e) => / failed: /.test(e.line))).toMatchObject({ stream: 'stderr', releaseId: release.id });
  }, 120_000);

  it('resumes after a control-plane restart: lines printed meanwhile arrive, none twice', async () => {
    const before = ticks(await entries());
    await plane.close();
    await new Promise((r) => setTimeout(r, 2_000)); // the task keeps printing
    plane = await startPlane({ env, dataDir: plane.dataDir, reuse: { owner: plane.owner, project: plane.project } });
    const afterwards = await eventually(async () => {
      const now = ticks(await entries());
      return now.length >= before.length + 15 ? now : null;
    }, 30_000);
    // One task prints 0, 1, 2, … : every number once, in order, none missing across the restart.
    const first = afterwards[0]!;
    expect(afterwards).toEqual(afterwards.map((_, i) => first + i));
    const all = await entries();
    expect(all.filter((e) => e.line.startsWith('healthy listening on')).length).toBe(1);
    expect(new Set(all.map((e) => `${e.time} ${e.stream} ${e.line}`)).size).toBe(all.length);
  }, 120_000);
});
