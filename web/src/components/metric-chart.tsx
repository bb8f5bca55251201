// One time-series chart drawn by uPlot (canvas). The legend shows the point under the cursor and,
// when the cursor is elsewhere, the newest point that has traffic, so the values are always readable.
// Loaded on demand (performance-panel.tsx imports it dynamically): uPlot and its stylesheet stay
// out of the first load.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { ChartSeries, ChartSpec } from './chart-data.js';

export interface MetricChartProps extends ChartSpec {
  /** Unix seconds of each point. */
  times: number[];
}

// The newest index where any series has a non-zero value (else the last index).
function newestWithData(series: ChartSeries[], length: number): number {
  for (let i = length - 1; i >= 0; i--) if (series.some((s) => (s.values[i] ?? 0) !== 0)) return i;
  return Math.max(0, length - 1);
}

/** A responsive uPlot line chart with a live legend. */
export function MetricChart({ id, title, unit, tick, times, series, minYMax }: MetricChartProps) {
  const container = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const el = container.current;
    if (!el) return;
    const width = () => Math.max(260, Math.floor(el.clientWidth));
    const pinned = newestWithData(series, times.length);
    const options: uPlot.Options = {
      width: width(),
      height: 180,
      cursor: { drag: { x: false, y: false } },
      legend: { live: true },
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(max, minYMax) * 1.05] } },
      axes: [
        { stroke: '#8a8f98', grid: { stroke: 'rgba(128,128,128,0.15)' }, ticks: { stroke: 'rgba(128,128,128,0.3)' } },
        {
          stroke: '#8a8f98',
          grid: { stroke: 'rgba(128,128,128,0.15)' },
          ticks: { stroke: 'rgba(128,128,128,0.3)' },
          size: 72,
          label: unit,
          labelSize: 20,
          values: (_u, ticks) => ticks.map(tick),
        },
      ],
      series: [
        { label: 'Time' },
        ...series.map((s) => ({
          label: s.label,
          stroke: s.color,
          width: 2,
          ...(s.dashed ? { dash: [6, 4] } : {}),
          spanGaps: false,
          points: s.dots ? { show: true, size: 6, fill: s.color } : { show: false },
          value: (_u: uPlot, v: number | null) => (v === null ? '—' : s.format(v)),
        })),
      ],
      hooks: {
        // Cursor left the plot: keep showing the newest point with traffic instead of blanks.
        setCursor: [(u) => void (u.cursor.idx === null || u.cursor.idx === undefined ? u.setLegend({ idx: pinned }, false) : undefined)],
      },
    };
    const plot = new uPlot(options, [times, ...series.map((s) => s.values)] as uPlot.AlignedData, el);
    plot.setLegend({ idx: pinned }, false);
    let lastWidth = width();
    const observer = new ResizeObserver(() => {
      const next = width();
      if (next === lastWidth) return; // only the container's width drives the chart size
      lastWidth = next;
      plot.setSize({ width: next, height: 180 });
    });
    observer.observe(el);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [times, series, minYMax, unit, tick]);

  return (
    <figure class="chart" id={id} aria-label={`${title} (${unit})`}>
      <figcaption>
        {title} <span class="muted">({unit})</span>
      </figcaption>
      <div ref={container} class="chart-canvas" />
    </figure>
  );
}
