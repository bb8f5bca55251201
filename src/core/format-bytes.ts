// The one way svc writes a byte count for people: binary units (KiB, MiB, GiB, TiB), because svc's
// limits are set in them (2 GiB of project storage, 64 MiB per artifact file). Pure and importing
// nothing, so the CLI, the app runtime (bucket inventory) and the browser console all use it.

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

/** 512 → "512 B", 1536 → "1.5 KiB", 2 GiB → "2.0 GiB"; one decimal above bytes. */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  if (unit === 0) return `${Number.isInteger(value) ? value : value.toFixed(1)} B`;
  return `${value.toFixed(1)} ${UNITS[unit]}`;
}
