// What the performance charts draw, from one metrics response: series, colours and units. Pure, so
// the numbers and their units are checked without a browser (and without uPlot, which loads later).
import type { MetricsResponse } from '../../../src/ingress/contract.js';
import { formatBytes, formatMs, formatPercent } from '../lib/format.js';

export interface ChartSeries {
  label: string;
  color: string;
  values: (number | null)[];
  /** A value with its unit, for the legend under the cursor. */
  format(value: number): string;
  /** Draw a dot on every point (series with gaps, where one lone point has no line). */
  dots?: boolean;
  /** Dashed line: answers svc gave itself, not the app's. */
  dashed?: boolean;
}

export interface ChartSpec {
  id: string;
  title: string;
  /** The y axis's unit, written beside it. */
  unit: string;
  /** A y-axis tick value with its unit. */
  tick(value: number): string;
  /** Smallest upper bound of the y axis, so an idle series is drawn flat at the bottom. */
  minYMax: number;
  series: ChartSeries[];
}

type Point = MetricsResponse['series'][number];

/** 60 → "min", 600 → "10 min", 3600 → "h", 21600 → "6 h": the width of one point. */
export function stepName(stepSeconds: number): string {
  if (stepSeconds % 3600 === 0) return stepSeconds === 3600 ? 'h' : `${stepSeconds / 3600} h`;
  if (stepSeconds % 60 === 0) return stepSeconds === 60 ? 'min' : `${stepSeconds / 60} min`;
  return `${stepSeconds} s`;
}

const count = (v: number) => (v >= 10_000 ? `${(v / 1000).toFixed(0)}k` : String(Math.round(v * 100) / 100));

/** The charts' data from a metrics response. Pure. */
export function toCharts(m: MetricsResponse): { times: number[]; charts: ChartSpec[] } {
  const times = m.series.map((p) => Math.floor(Date.parse(p.t) / 1000));
  const pick = (f: (p: Point) => number | null) => m.series.map(f);
  const per = `/ ${stepName(m.stepSeconds)}`;
  const requests = (v: number) => `${count(v)} req ${per}`;
  const bytesPerSecond = (v: number) => `${formatBytes(v)}/s`;
  return {
    times,
    charts: [
      {
        id: 'chart-requests',
        title: 'Requests',
        unit: `requests ${per}`,
        tick: count,
        minYMax: 5,
        series: [
          { label: 'requests', color: '#2f6fde', values: pick((p) => p.requests), format: requests },
          { label: 'app 5xx', color: '#d23f3f', values: pick((p) => p.errors), format: requests },
          { label: 'answered by svc', color: '#8a6d1f', dashed: true, values: pick((p) => p.platform), format: requests },
        ],
      },
      {
        id: 'chart-error-rate',
        title: 'App error rate',
        unit: '%',
        tick: (v) => formatPercent(v),
        minYMax: 0.05,
        series: [
          {
            label: 'app 5xx rate',
            color: '#d23f3f',
            dots: true,
            values: pick((p) => (p.requests > p.platform ? p.errors / (p.requests - p.platform) : null)),
            format: (v) => formatPercent(v),
          },
        ],
      },
      {
        id: 'chart-latency',
        title: 'Latency',
        unit: 'ms',
        tick: formatMs,
        minYMax: 10,
        series: [
          { label: 'p50', color: '#2f9e6f', dots: true, values: pick((p) => p.p50), format: formatMs },
          { label: 'p95', color: '#c77d12', dots: true, values: pick((p) => p.p95), format: formatMs },
        ],
      },
      {
        id: 'chart-bytes',
        title: 'Response bytes',
        unit: 'bytes/s',
        tick: bytesPerSecond,
        minYMax: 1024 / m.stepSeconds,
        series: [{ label: 'bytes/s', color: '#7a4fd1', values: pick((p) => p.bytes / m.stepSeconds), format: bytesPerSecond }],
      },
    ],
  };
}
