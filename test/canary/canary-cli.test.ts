import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { canaryHttp, canaryRows } from '../../cli/commands/canary.js';
import type { HttpClient, HttpRequest } from '../../src/core/http/http-client.js';
import type { CanaryReportResponse } from '../../src/canary/contract.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('svc canary', () => {
  it('renders runs with their stages and failure', () => {
    const report: CanaryReportResponse = {
      projectId: 'prj_1',
      runs: [
        {
          id: 'can_1',
          releaseId: 'rel_2',
          baselineReleaseId: 'rel_1',
          state: 'failed',
          policy: { stages: [{ trafficPercent: 10, durationMs: 1000, minimumSamples: 5 }], maximumErrorRate: 0.01, maximumP95Ms: 200 },
          failure: { code: 'SVC_CANARY_CRITERIA_FAILED', message: 'stage 1: error-rate-exceeded' },
          startedAt: '2026-01-01T00:00:00.000Z',
          finishedAt: '2026-01-01T00:00:01.000Z',
          stages: [
            {
              index: 0,
              trafficPercent: 10,
              state: 'failed',
              reason: 'error-rate-exceeded',
              samples: 12,
              errorRate: 0.25,
              p95Ms: 41.2,
              startedAt: '2026-01-01T00:00:00.000Z',
              endedAt: '2026-01-01T00:00:01.000Z',
            },
          ],
        },
      ],
    };
    const text = canaryRows(report).join('\n');
    expect(text).toContain('can_1');
    expect(text).toContain('SVC_CANARY_CRITERIA_FAILED');
    expect(text).toMatch(/1\s+10%\s+failed\s+12\s+25\.00%\s+41 ms\s+error-rate-exceeded/);
    expect(canaryRows({ projectId: 'prj_1', runs: [] })[0]).toContain('No canary rollouts yet');
  });

  it('svc deploy --canary adds the canary header to the upload only', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-canary-cli-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'svc.deploy.json'), JSON.stringify({ version: 1, entry: 'dist/server.js' }));
    const seen: HttpRequest[] = [];
    const answer = { status: 200, header: () => null, body: Buffer.from('{}'), text: () => '{}' };
    const base: HttpClient = {
      send: async (req) => (seen.push(req), answer),
      open: async () => {
        throw new Error('not used');
      },
    };
    const wrapped = canaryHttp(base, dir);
    await wrapped.send({
      method: 'POST',
      url: 'http://svc/api/projects/p/releases',
      headers: { 'content-type': 'application/vnd.svc.deploy+gzip' },
      timeoutMs: 10,
    });
    await wrapped.send({ method: 'GET', url: 'http://svc/api/projects/p', headers: { accept: 'application/json' }, timeoutMs: 10 });
    expect(seen[0]!.headers?.['x-svc-canary']).toBe('1');
    expect(seen[0]!.timeoutMs).toBeGreaterThan(10); // the stages extend the 10 ms bound
    expect(seen[1]!.headers?.['x-svc-canary']).toBeUndefined();
    expect(seen[1]!.timeoutMs).toBe(10);
  });
});
