// Ingress performance of one project over 1 h, 24 h, 7 d or 30 d: totals and four uPlot charts
// (requests and errors, error rate, p50/p95 latency, bytes) from the stored, downsampled metrics.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ingressRoutePaths, metricsResponseSchema, type MetricsResponse } from '../../../src/ingress/contract.js';
import { routePath } from '../../../src/identity/contract.js';
import { formatBytes, formatMs, formatPercent } from '../lib/format.js';
import { useApi } from '../lib/use-api.js';
import { AsyncView } from './async-view.js';
import { MetricChart, type ChartSeries } from './metric-chart.js';
import { Empty } from './status.js';

const windows = [
  { value: '1h', label: '1 hour' },
  { value: '24h', label: '24 hours' },
  { value: '7d', label: '7 days' },
  { value: '30d', label: '30 days' },
] as const;
type Window = (typeof windows)[number]['value'];

const count = (v: number) => (v >= 10_000 ? `${(v / 1000).toFixed(0)}k` : String(Math.round(v * 100) / 100));

/** The charts' data from a metrics response. Pure. */
export function toCharts(m: MetricsResponse): { times: number[]; charts: { id: string; title: string; minYMax: number; series: ChartSeries[] }[] } {
  const times = m.series.map((p) => Math.floor(Date.parse(p.t) / 1000));
  const pick = (f: (p: MetricsResponse['series'][number]) => number | null) => m.series.map(f);
  return {
    times,
    charts: [
      {
        id: 'chart-requests',
        title: 'Requests',
        minYMax: 5,
        series: [
          { label: 'requests', color: '#2f6fde', values: pick((p) => p.requests), format: count },
          { label: '5xx errors', color: '#d23f3f', values: pick((p) => p.errors), format: count },
        ],
      },
      {
        id: 'chart-error-rate',
        title: 'Error rate',
        minYMax: 0.05,
        series: [
          {
            label: 'error rate',
            color: '#d23f3f',
            dots: true,
            values: pick((p) => (p.requests ? p.errors / p.requests : null)),
            format: (v) => formatPercent(v),
          },
        ],
      },
      {
        id: 'chart-latency',
        title: 'Latency',
        minYMax: 10,
        series: [
          { label: 'p50', color: '#2f9e6f', dots: true, values: pick((p) => p.p50), format: formatMs },
          { label: 'p95', color: '#c77d12', dots: true, values: pick((p) => p.p95), format: formatMs },
        ],
      },
      {
        id: 'chart-bytes',
        title: 'Response bytes',
        minYMax: 1024,
        series: [{ label: 'bytes', color: '#7a4fd1', values: pick((p) => p.bytes), format: formatBytes }],
      },
    ],
  };
}

/** Window picker, totals and charts for `projectId`. */
export function PerformancePanel({ projectId }: { projectId: string }) {
  const [span, setSpan] = useState<Window>('1h');
  const state = useApi(routePath(ingressRoutePaths.metrics, { id: projectId }), metricsResponseSchema, { window: span });
  useEffect(() => {
    const timer = setInterval(state.reload, 15_000);
    return () => clearInterval(timer);
  }, [state.reload]);

  return (
    <section class="card" aria-labelledby="perf-title">
      <div class="card-head">
        <h2 id="perf-title">Ingress performance</h2>
        <div class="segmented" role="radiogroup" aria-label="Time window">
          {windows.map((w) => (
            <button
              key={w.value}
              type="button"
              role="radio"
              aria-checked={span === w.value}
              id={`window-${w.value}`}
              class={span === w.value ? 'active' : ''}
              onClick={() => setSpan(w.value)}
            >
              {w.label}
            </button>
          ))}
          <button type="button" class="secondary" id="metrics-refresh" onClick={state.reload} aria-label="Refresh metrics">
            ↻
          </button>
        </div>
      </div>
      <AsyncView state={state} feature="Ingress metrics">
        {(m) => <Metrics metrics={m} />}
      </AsyncView>
    </section>
  );
}

function Metrics({ metrics }: { metrics: MetricsResponse }) {
  const { times, charts } = useMemo(() => toCharts(metrics), [metrics]);
  const t = metrics.totals;
  return (
    <>
      <dl class="stats" id="metrics-totals">
        <div>
          <dt>Requests</dt>
          <dd id="total-requests">{t.requests}</dd>
        </div>
        <div>
          <dt>Error rate</dt>
          <dd id="total-error-rate">{formatPercent(t.errorRate)}</dd>
        </div>
        <div>
          <dt>p50 / p95</dt>
          <dd id="total-latency">
            {formatMs(t.p50)} / {formatMs(t.p95)}
          </dd>
        </div>
        <div>
          <dt>Bytes served</dt>
          <dd id="total-bytes">{formatBytes(t.bytes)}</dd>
        </div>
        <div>
          <dt>4xx · aborted</dt>
          <dd>
            {t.clientErrors} · {t.aborted}
          </dd>
        </div>
      </dl>
      {t.requests === 0 ? (
        <Empty title="No requests in this window">
          <p class="muted">Traffic to the app’s address appears here within a few seconds.</p>
        </Empty>
      ) : null}
      <div class="charts">
        {charts.map((c) => (
          <MetricChart key={c.id} id={c.id} title={c.title} times={times} series={c.series} minYMax={c.minYMax} />
        ))}
      </div>
    </>
  );
}
