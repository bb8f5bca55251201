// Ingress performance of one project over 1 h, 24 h, 7 d or 30 d: totals and four uPlot charts
// (requests with the app's 5xx and svc's own answers apart, app error rate, p50/p95 latency, bytes/s)
// from the stored, downsampled metrics. uPlot is loaded only here, when the panel first has data.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ingressRoutePaths, metricsResponseSchema, type MetricsResponse } from '../../../src/ingress/contract.js';
import { routePath } from '../../../src/identity/contract.js';
import { formatBytes, formatMs, formatPercent } from '../lib/format.js';
import { useApi } from '../lib/use-api.js';
import { AsyncView } from './async-view.js';
import { toCharts } from './chart-data.js';
import type * as MetricChartModule from './metric-chart.js';
import { Empty, ErrorBox, Loading } from './status.js';

const windows = [
  { value: '1h', label: '1 hour' },
  { value: '24h', label: '24 hours' },
  { value: '7d', label: '7 days' },
  { value: '30d', label: '30 days' },
] as const;
type Window = (typeof windows)[number]['value'];

type ChartModule = typeof MetricChartModule;
// One download per page load, shared by every panel that draws charts.
let chartModule: Promise<ChartModule> | null = null;

/** The chart module (uPlot and its stylesheet), fetched on first use; a failed fetch can be retried. */
function useChartModule(): { module: ChartModule | null; error: Error | null; retry(): void } {
  const [state, setState] = useState<{ module: ChartModule | null; error: Error | null }>({ module: null, error: null });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let live = true;
    chartModule ??= import('./metric-chart.js');
    chartModule.then(
      (module) => live && setState({ module, error: null }),
      (error: Error) => {
        chartModule = null;
        if (live) setState({ module: null, error });
      },
    );
    return () => void (live = false);
  }, [attempt]);
  return { ...state, retry: () => setAttempt((n) => n + 1) };
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
  const t = metrics.totals;
  return (
    <>
      <dl class="stats" id="metrics-totals">
        <div>
          <dt>Requests</dt>
          <dd id="total-requests">{t.requests}</dd>
        </div>
        <div>
          <dt>App error rate</dt>
          <dd id="total-error-rate">{formatPercent(t.errorRate)}</dd>
        </div>
        <div>
          <dt>Answered by svc</dt>
          <dd id="total-platform">{t.platform}</dd>
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
        <Empty title="No traffic in this window">
          <p class="muted">Requests to the app’s address appear here within a few seconds.</p>
        </Empty>
      ) : (
        <Charts metrics={metrics} />
      )}
    </>
  );
}

function Charts({ metrics }: { metrics: MetricsResponse }) {
  const { module, error, retry } = useChartModule();
  const { times, charts } = useMemo(() => toCharts(metrics), [metrics]);
  if (error) return <ErrorBox error={error} retry={retry} />;
  if (!module) return <Loading label="Loading charts…" />;
  const { MetricChart } = module;
  return (
    <div class="charts">
      {charts.map((c) => (
        <MetricChart key={c.id} times={times} {...c} />
      ))}
    </div>
  );
}
