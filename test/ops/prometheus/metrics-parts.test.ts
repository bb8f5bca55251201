// The pure parts of GET /metrics: the scrape token, the latency fold, the API request key and the
// combined release observer.
import { describe, expect, it } from 'vitest';
import { binIndex, emptyHistogram } from '../../../src/ingress/index.js';
import { apiRequestKey } from '../../../src/ops/prometheus/api-requests.js';
import { addCounts } from '../../../src/ops/prometheus/edge-series.js';
import { bearerMatches, readMetricsToken, tokenDigest } from '../../../src/ops/prometheus/metrics-token.js';
import { foldedBounds, foldHistogram, RequestSeries } from '../../../src/ops/prometheus/request-series.js';
import { combineObservers, type ReleaseObserver } from '../../../src/releases/index.js';
import { isSvcError } from '../../../src/core/errors.js';

const TOKEN = 'a'.repeat(40);

describe('the metrics token', () => {
  it('is off when unset or empty and refuses a short or non-printable one', () => {
    expect(readMetricsToken({})).toBeNull();
    expect(readMetricsToken({ SVC_METRICS_TOKEN: '' })).toBeNull();
    expect(readMetricsToken({ SVC_METRICS_TOKEN: TOKEN })).toBe(TOKEN);
    for (const bad of ['short', 'x'.repeat(31), `${'x'.repeat(40)} y`, 'é'.repeat(40)]) {
      let thrown: unknown;
      try {
        readMetricsToken({ SVC_METRICS_TOKEN: bad });
      } catch (error) {
        thrown = error;
      }
      expect(isSvcError(thrown, 'SVC_METRICS_CONFIG'), bad).toBe(true);
    }
  });

  it('matches only `Bearer <token>` (scheme case-insensitive)', () => {
    const digest = tokenDigest(TOKEN);
    expect(bearerMatches(`Bearer ${TOKEN}`, digest)).toBe(true);
    expect(bearerMatches(`bearer ${TOKEN}`, digest)).toBe(true);
    expect(bearerMatches(undefined, digest)).toBe(false);
    expect(bearerMatches(TOKEN, digest)).toBe(false);
    expect(bearerMatches(`Basic ${TOKEN}`, digest)).toBe(false);
    expect(bearerMatches(`Bearer ${TOKEN}x`, digest)).toBe(false);
    expect(bearerMatches('Bearer ', digest)).toBe(false);
  });
});

describe('the latency fold', () => {
  it('exposes doublings from 0.5 ms to 65.5 s, cumulative, with the overflow only in +Inf', () => {
    const bounds = foldedBounds();
    expect(bounds[0]).toBeCloseTo(0.0005, 10);
    expect(bounds.at(-1)).toBeCloseTo(65.536, 6);
    for (let i = 1; i < bounds.length; i++) expect(bounds[i]! / bounds[i - 1]!).toBeCloseTo(2, 10);

    const h = emptyHistogram();
    for (const ms of [0.1, 0.5, 0.6, 3, 1000, 200_000]) h[binIndex(ms)]!++;
    const { cumulative, total } = foldHistogram(h);
    expect(cumulative).toHaveLength(bounds.length);
    expect(total).toBe(6);
    // Every bucket counts exactly the latencies at or below its bound.
    bounds.forEach((le, i) => expect(cumulative[i], `le=${le}`).toBe([0.1, 0.5, 0.6, 3, 1000, 200_000].filter((ms) => ms <= le * 1000).length));
  });

  it('merges keys that name the same project and leaves unresolved ones under the empty project', async () => {
    const series = new RequestSeries('t', 'test requests');
    series.record('p1', 200, 2, 10);
    series.record('shop', 503, 4, 5);
    series.record('nobody', 404, 1, 0);
    series.record('p2', 0, 8, 0);
    const [requests, duration, bytes] = series.families((key) => (key === 'shop' ? 'p1' : key === 'nobody' ? null : key));
    expect((await requests!.get()).values).toEqual([
      { labels: { project: 'p1', code: '2xx' }, value: 1 },
      { labels: { project: 'p1', code: '5xx' }, value: 1 },
      { labels: { project: '', code: '4xx' }, value: 1 },
      { labels: { project: 'p2', code: 'none' }, value: 1 },
    ]);
    const counts = (await duration!.get()).values.filter((v) => v.metricName === 't_request_duration_seconds_count');
    expect(counts).toEqual([
      { metricName: 't_request_duration_seconds_count', labels: { project: 'p1' }, value: 2 },
      { metricName: 't_request_duration_seconds_count', labels: { project: '' }, value: 1 },
      { metricName: 't_request_duration_seconds_count', labels: { project: 'p2' }, value: 1 },
    ]);
    expect((await bytes!.get()).values).toContainEqual({ labels: { project: 'p1' }, value: 15 });
  });
});

describe('the API request key', () => {
  const none = () => false;
  it('is the :id of a project route once a response below 400 proved it', () => {
    expect(apiRequestKey('/api/projects/p1/releases', { id: 'p1' }, 200, none)).toBe('p1');
    expect(apiRequestKey('/api/projects/made-up/releases', { id: 'made-up' }, 404, none)).toBe('');
    expect(apiRequestKey('/api/projects/p1/rollback', { id: 'p1' }, 409, (k) => k === 'p1')).toBe('p1');
    expect(apiRequestKey('/api/orgs/o1', { id: 'o1' }, 200, none)).toBe('');
    expect(apiRequestKey('/api/projects', {}, 200, none)).toBe('');
    expect(apiRequestKey('/readyz', null, 200, none)).toBe('');
  });
});

describe('combineObservers', () => {
  it('calls every observer of an event even when one throws, then rethrows the first error', () => {
    const seen: string[] = [];
    const failing: ReleaseObserver = {
      onOutcome: () => {
        seen.push('a');
        throw new Error('a failed');
      },
    };
    const counting: ReleaseObserver = { onOutcome: (r) => void seen.push(`b:${r.id}`) };
    const both = combineObservers([failing, null, counting]);
    expect(() => both.onOutcome!({ id: 'r1', projectId: 'p' })).toThrow('a failed');
    expect(seen).toEqual(['a', 'b:r1']);
  });
});

describe('in-flight requests', () => {
  it("adds the control plane's table and the ingress process's per project", () => {
    const local = [
      { projectId: 'p1', inFlight: 0 },
      { projectId: 'p2', inFlight: 2 },
    ];
    const edge = [
      { projectId: 'p1', inFlight: 3 },
      { projectId: 'p3', inFlight: 1 },
    ];
    expect([...addCounts('inFlight', local, edge)]).toEqual([
      ['p1', 3],
      ['p2', 2],
      ['p3', 1],
    ]);
    expect([...addCounts('inFlight', local, [])]).toEqual([
      ['p1', 0],
      ['p2', 2],
    ]);
  });

  it('adds live-query streams the same way; an ingress process that does not count them counts none', () => {
    const local = [{ projectId: 'p1', inFlight: 2, liveStreams: 1 }];
    const edge = [
      { projectId: 'p1', inFlight: 3, liveStreams: 2 },
      { projectId: 'p2', inFlight: 1 },
    ];
    expect([...addCounts('liveStreams', local, edge)]).toEqual([
      ['p1', 3],
      ['p2', 0],
    ]);
  });
});
