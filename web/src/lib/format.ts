// Formatting of sizes, times and durations for display. Pure.
import { formatBytes as formatByteCount } from '../../../src/core/format-bytes.js';

/** 1536 → "1.5 KiB" (svc's one byte format, shared with the CLI); "—" when unknown. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return '—';
  return formatByteCount(bytes);
}

/** ISO time → "2026-03-01 12:00:05" in the browser's zone. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** ISO time relative to `now` in words → "a few seconds ago", "3 minutes ago", "in 2 hours", "5 days ago". */
export function formatRelative(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '—';
  const ms = Date.parse(iso) - now;
  if (Number.isNaN(ms)) return iso;
  const abs = Math.abs(ms);
  if (abs < 45_000) return ms < 0 ? 'a few seconds ago' : 'in a few seconds';
  const [count, unit] =
    abs < 3_600_000
      ? [Math.max(1, Math.round(abs / 60_000)), 'minute']
      : abs < 172_800_000
        ? [Math.round(abs / 3_600_000), 'hour']
        : [Math.round(abs / 86_400_000), 'day'];
  const text = `${count} ${unit}${count === 1 ? '' : 's'}`;
  return ms < 0 ? `${text} ago` : `in ${text}`;
}

/** Milliseconds → "12 ms" / "1.20 s". */
export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  return ms < 1000 ? `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** 0.0123 → "1.23 %". */
export function formatPercent(ratio: number | null | undefined): string {
  if (ratio === null || ratio === undefined) return '—';
  return `${(ratio * 100).toFixed(ratio < 0.1 ? 2 : 1)} %`;
}

/** A short form of an id for tables ("rel_01HX…" stays readable). */
export function shortId(id: string): string {
  return id.length > 16 ? `${id.slice(0, 14)}…` : id;
}
