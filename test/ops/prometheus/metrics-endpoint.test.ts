// GET /metrics on the real control plane (a child process with its ingress process and real apps):
// after two deploys, a rollback, app traffic through the ingress and API calls, a scrape with the
// metrics token is parsed with a Prometheus text-format parser and every series is checked against
// what was done. Scrapes without the token are refused; without a configured token nobody gets in.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import parsePrometheusTextFormat, { type ParsedFamily, type ParsedSample } from 'parse-prometheus-text-format';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPlatformConfig } from '../../../src/core/config.js';
import { isSvcError } from '../../../src/core/errors.js';
import { createLogger } from '../../../src/core/logger.js';
import { buildControlPlane } from '../../../src/platform.js';
import { bootstrapAccount, type TestAccount } from '../../support/account.js';
import { postRelease } from '../../support/post-release.js';
import { startPlatform, type StartedPlatform } from '../../support/start-platform.js';
import { eventually, packFixture, type Artifact } from '../../releases/release-support.js';

const TOKEN = `metrics-${randomUUID()}-${randomUUID()}`;
const SLUG = `metrics-${randomUUID().slice(0, 6)}`;
const INGRESS_REQUESTS = 7;
const API_BY_ID = 3;
const API_BY_SLUG = 2;

let platform: StartedPlatform;
let account: TestAccount;
let workDir: string;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'svc-metrics-'));
  platform = await startPlatform({ env: { SVC_METRICS_TOKEN: TOKEN } });
  account = await bootstrapAccount(platform.url);
}, 90_000);

afterAll(async () => {
  await platform?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

async function deploy(projectId: string, artifact: Artifact): Promise<string> {
  const res = await postRelease(platform.url, account.accessToken, projectId, artifact, { key: `key-${randomUUID()}`, wait: true });
  const body = (await res.json()) as { release?: { id: string; status: string } };
  expect(body.release?.status, `${res.status} ${JSON.stringify(body)}\n${platform.logs().slice(-3000)}`).toBe('active');
  return body.release!.id;
}

function scrape(authorization?: string): Promise<Response> {
  return fetch(`${platform.url}/metrics`, { headers: authorization === undefined ? {} : { authorization } });
}

interface Scrape {
  /** Every family as the parser reads the exposition. */
  families: Map<string, ParsedFamily>;
  /** Every sample line by its own name (`x_bucket`, `x_sum`, `x_count` apart): the parser's histogram grouping drops labels. */
  lines: Map<string, ParsedSample[]>;
}

async function scrapeParsed(): Promise<Scrape> {
  const res = await scrape(`Bearer ${TOKEN}`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const families = new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f]));
  // parse-prometheus-text-format folds all label sets of a histogram into one; read as untyped, each
  // bucket, sum and count line keeps its labels (the types were checked in the first parse).
  const untyped = parsePrometheusTextFormat(text.replace(/^# TYPE (\S+) histogram$/gm, '# TYPE $1 untyped'));
  const lines = new Map<string, ParsedSample[]>();
  for (const f of untyped) lines.set(f.name, [...(lines.get(f.name) ?? []), ...f.metrics]);
  return { families, lines };
}

/** The samples of a counter or gauge whose labels include `labels`. */
function samples(scrape: Scrape, name: string, labels: Record<string, string> = {}): ParsedSample[] {
  const family = scrape.families.get(name);
  if (!family) throw new Error(`no family ${name} in the scrape`);
  expect(family.type).not.toBe('HISTOGRAM');
  return family.metrics.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
}

function value(scrape: Scrape, name: string, labels: Record<string, string> = {}): number {
  return samples(scrape, name, labels).reduce((sum, m) => sum + Number(m.value), 0);
}

/** One series of a histogram: its cumulative buckets by `le`, count and sum. */
function histogram(scrape: Scrape, name: string, labels: Record<string, string>): { buckets: [number, number][]; count: number; sum: number } {
  expect(scrape.families.get(name)?.type).toBe('HISTOGRAM');
  const matching = (suffix: string) =>
    (scrape.lines.get(`${name}_${suffix}`) ?? []).filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  const one = (suffix: string) => {
    const found = matching(suffix);
    expect(found, `${name}_${suffix} ${JSON.stringify(labels)}`).toHaveLength(1);
    return Number(found[0]!.value);
  };
  const buckets = matching('bucket').map((m): [number, number] => [m.labels!.le === '+Inf' ? Infinity : Number(m.labels!.le), Number(m.value)]);
  return { buckets: buckets.sort(([a], [b]) => a - b), count: one('count'), sum: one('sum') };
}

describe('GET /metrics', () => {
  it('refuses scrapes without the metrics token', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token-wrong-token-wrong-token', `Basic ${TOKEN}`, `Bearer ${account.accessToken}`]) {
      const res = await scrape(authorization);
      expect(res.status, authorization).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('SVC_METRICS_UNAUTHORIZED');
    }
  });

  it('shows deploys, a rollback, ingress and API traffic, health checks, apps and the process', async () => {
    const { project } = await account.api<{ project: { id: string } }>('POST', '/api/projects', { name: SLUG, slug: SLUG });
    const v1 = await packFixture('healthy', workDir);
    const v2 = await packFixture('healthy-v2', workDir);
    const first = await deploy(project.id, v1);
    await deploy(project.id, v2);
    await account.api('POST', `/api/projects/${project.id}/rollback`, { releaseId: first });

    for (let i = 0; i < INGRESS_REQUESTS; i++) {
      const res = await request(`${platform.url}/`, { headers: { host: `${SLUG}.localhost:${platform.port}` } });
      await res.body.text();
      expect(res.statusCode).toBe(200);
    }
    for (let i = 0; i < API_BY_ID; i++) await account.api('GET', `/api/projects/${project.id}/releases`);
    for (let i = 0; i < API_BY_SLUG; i++) await account.api('GET', `/api/projects/${SLUG}/releases`);

    // The ingress process reports its records to the control plane asynchronously.
    const families = await eventually(async () => {
      const f = await scrapeParsed();
      return value(f, 'svc_ingress_requests_total', { project: project.id }) >= INGRESS_REQUESTS ? f : null;
    }, 20_000);
    const mine = { project: project.id };

    // Releases and the rollback, with their durations and the uploaded bytes.
    expect(value(families, 'svc_releases_total', { ...mine, outcome: 'success' })).toBe(2);
    expect(samples(families, 'svc_releases_total', { ...mine, outcome: 'failure' })).toEqual([]);
    const releaseSeconds = histogram(families, 'svc_release_duration_seconds', { ...mine, outcome: 'success' });
    expect(releaseSeconds.count).toBe(2);
    expect(releaseSeconds.sum).toBeGreaterThan(0);
    expect(value(families, 'svc_rollbacks_total', { ...mine, outcome: 'success' })).toBe(1);
    expect(histogram(families, 'svc_rollback_duration_seconds', { ...mine, outcome: 'success' }).count).toBe(1);
    expect(value(families, 'svc_release_upload_bytes_total', mine)).toBe(v1.bytes.length + v2.bytes.length);

    // App traffic through the ingress: counted per project, a histogram that adds up.
    expect(value(families, 'svc_ingress_requests_total', { ...mine, code: '2xx' })).toBeGreaterThanOrEqual(INGRESS_REQUESTS);
    const ingressLatency = histogram(families, 'svc_ingress_request_duration_seconds', mine);
    expect(ingressLatency.count).toBe(value(families, 'svc_ingress_requests_total', mine));
    expect(ingressLatency.buckets.at(-1)).toEqual([Infinity, ingressLatency.count]);
    const cumulative = ingressLatency.buckets.map(([, n]) => n);
    expect(cumulative).toEqual([...cumulative].sort((a, b) => a - b));
    expect(ingressLatency.sum).toBeGreaterThan(0);
    expect(value(families, 'svc_ingress_response_bytes_total', mine)).toBeGreaterThan(0);
    expect(samples(families, 'svc_ingress_in_flight_requests', mine)).toHaveLength(1);
    expect(samples(families, 'svc_live_query_streams', mine)).toHaveLength(1);
    expect(value(families, 'svc_live_query_streams', mine)).toBe(0);

    // API calls by id and by slug count under the project's id; never under its slug.
    const apiCalls = API_BY_ID + API_BY_SLUG + 3; // + two uploads and the rollback
    expect(value(families, 'svc_api_requests_total', { ...mine, code: '2xx' })).toBeGreaterThanOrEqual(apiCalls);
    expect(samples(families, 'svc_api_requests_total', { project: SLUG })).toEqual([]);
    expect(histogram(families, 'svc_api_request_duration_seconds', mine).count).toBe(value(families, 'svc_api_requests_total', mine));
    expect(value(families, 'svc_api_requests_total', { project: '', code: '4xx' })).toBeGreaterThanOrEqual(4); // the refused scrapes

    // Health checks of both deploys and the rollback; the app runs under the driver.
    expect(value(families, 'svc_health_checks_total', { ...mine, result: 'ok' })).toBeGreaterThanOrEqual(3);
    expect(value(families, 'svc_apps', { state: 'running' })).toBe(1);
    expect(value(families, 'svc_apps', { state: 'stopped' })).toBe(0);
    expect(value(families, 'svc_app_crashes_total', mine)).toBe(0);

    // A request held open (its body still arriving) counts in flight for the project, wherever it is proxied.
    expect(value(families, 'svc_ingress_in_flight_requests', mine)).toBe(0);
    expect(value(families, 'svc_edge_records_dropped_total')).toBe(0);
    const body = new PassThrough();
    const held = request(`${platform.url}/notes`, {
      method: 'POST',
      headers: { host: `${SLUG}.localhost:${platform.port}`, 'content-type': 'application/json' },
      body,
    });
    body.write('{"text":');
    const during = await eventually(async () => {
      const f = await scrapeParsed();
      return value(f, 'svc_ingress_in_flight_requests', mine) === 1 ? f : null;
    });
    expect(value(during, 'svc_ingress_in_flight_requests', mine)).toBe(1);
    body.end('"held"}');
    const answer = await held;
    await answer.body.text();
    expect(answer.statusCode).toBe(201);

    // The control plane itself: memory and event-loop lag.
    expect(value(families, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(value(families, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0);
    expect(value(families, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  }, 180_000);
});

describe('GET /metrics without SVC_METRICS_TOKEN', () => {
  it('refuses everyone with SVC_METRICS_DISABLED, and a malformed token stops start-up', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-metrics-off-'));
    try {
      const plane = await buildControlPlane({ config: testPlatformConfig({ dataDir, logLevel: 'silent' }), logger: createLogger({ level: 'silent' }) });
      try {
        for (const authorization of [undefined, 'Bearer anything-anything-anything-anything']) {
          const res = await plane.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });
          expect(res.statusCode).toBe(404);
          expect(res.json<{ error: { code: string } }>().error.code).toBe('SVC_METRICS_DISABLED');
        }
      } finally {
        await plane.close();
      }
      const refused = await buildControlPlane({
        config: testPlatformConfig({ dataDir, logLevel: 'silent', env: { SVC_METRICS_TOKEN: 'too-short' } }),
        logger: createLogger({ level: 'silent' }),
      }).then(
        async (p) => {
          await p.close();
          return null;
        },
        (error: unknown) => error,
      );
      expect(isSvcError(refused, 'SVC_METRICS_CONFIG')).toBe(true);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
