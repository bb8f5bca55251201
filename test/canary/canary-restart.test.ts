// A control-plane restart mid-canary: the real control plane runs as a child process, is SIGKILLed
// while a canary stage runs, and is started again on the same data directory. The run is reported
// `interrupted`, the candidate process is gone, and the prior release is still active and serving.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { request } from 'undici';
import type { CanaryReportResponse } from '../../src/canary/contract.js';
import { bootstrapAccount, type TestAccount } from '../support/account.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';
import { eventually, removeDataDir, type Artifact } from '../releases/release-support.js';
import { packCandidate, quickPolicy } from './support.js';

let dir: string;
const planes: StartedPlatform[] = [];

afterAll(async () => {
  for (const plane of planes) await plane.stop();
  if (dir) await removeDataDir(dir);
});

async function upload(url: string, account: TestAccount, projectId: string, artifact: Artifact, wait: boolean): Promise<{ id: string; status: string }> {
  const res = await fetch(`${url}/api/projects/${projectId}/releases?wait=${wait}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${account.accessToken}`,
      'content-type': 'application/vnd.svc.deploy+gzip',
      'x-svc-artifact-digest': artifact.digest,
      'idempotency-key': `key-${randomUUID()}`,
    },
    body: new Uint8Array(artifact.bytes),
  });
  const body = (await res.json()) as { release?: { id: string; status: string } };
  if (!body.release) throw new Error(`upload → ${res.status} ${JSON.stringify(body)}`);
  return body.release;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

it('marks a running canary interrupted after a control-plane restart and keeps the prior release', async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-canary-restart-'));
  const dataDir = join(dir, 'data');
  const [baseline, candidate] = await Promise.all([
    packCandidate(dir, 1, 'ok'),
    packCandidate(dir, 2, 'ok', quickPolicy({ stages: [{ trafficPercent: 50, durationMs: 120_000, minimumSamples: 5 }] })),
  ]);
  // Apps stay up when the plane stops cleanly; here it is killed, and the restart re-adopts them.
  const env = { SVC_KEEP_APPS_ON_SHUTDOWN: '1' };
  const first = await startPlatform({ dataDir, env });
  planes.push(first);
  const account = await bootstrapAccount(first.url);
  const { project } = await account.api<{ project: { id: string; slug: string } }>('POST', '/api/projects', {
    name: 'Restart',
    slug: `rst-${randomUUID().slice(0, 6)}`,
  });
  const prior = await upload(first.url, account, project.id, baseline, true);
  expect(prior.status).toBe('active');
  const canary = await upload(first.url, account, project.id, candidate, false);
  await eventually(async () => {
    const report = await account.api<CanaryReportResponse>('GET', `/api/projects/${project.id}/canary`);
    return report.runs[0]?.state === 'running' && report.runs[0].stages.length === 1;
  }, 30_000);
  const db = new Database(join(dataDir, 'control.db'), { readonly: true });
  const record = db.prepare('SELECT run_record FROM releases WHERE id = ?').get(canary.id) as { run_record: string | null };
  db.close();
  const candidatePid = (JSON.parse(record.run_record!) as { pid: number }).pid;
  expect(pidAlive(candidatePid)).toBe(true);

  first.child.kill('SIGKILL');
  await new Promise<void>((resolve) =>
    first.child.exitCode !== null || first.child.signalCode !== null ? resolve() : first.child.once('exit', () => resolve()),
  );

  const second = await startPlatform({ dataDir, env: {} });
  planes.push(second);
  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${second.url}${path}`, { headers: { authorization: `Bearer ${account.accessToken}` } });
    expect(res.status).toBe(200);
    return (await res.json()) as T;
  };
  const after = await api<CanaryReportResponse>(`/api/projects/${project.id}/canary`);
  expect(after.runs[0]).toMatchObject({ releaseId: canary.id, baselineReleaseId: prior.id, state: 'interrupted', failure: { code: 'SVC_CANARY_INTERRUPTED' } });
  expect(after.runs[0]!.stages[0]!.state).toBe('interrupted');
  const releases = await api<{ activeReleaseId: string | null; releases: { id: string; status: string; failure: { code: string } | null }[] }>(
    `/api/projects/${project.id}/releases`,
  );
  expect(releases.activeReleaseId).toBe(prior.id);
  expect(releases.releases.find((r) => r.id === canary.id)).toMatchObject({ status: 'failed', failure: { code: 'SVC_RELEASE_INTERRUPTED' } });
  await eventually(() => !pidAlive(candidatePid), 15_000);
  // The prior release answers through the restarted ingress.
  await eventually(async () => {
    const res = await request(`${second.url}/`, { headers: { host: `${project.slug}.localhost:${second.port}` } });
    const body = (await res.body.json()) as { version?: number };
    return res.statusCode === 200 && body.version === 1;
  }, 20_000);
}, 120_000);
