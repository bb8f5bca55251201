// A time relative to now in the CLI's short units ("in 3 d", "5 min ago"), shared by the commands
// that show when something happened or will happen.

/** "in 3 d" / "2 h ago" for a time relative to now (whole units, rounded down). Pure. */
export function relativeTime(at: number, now: number): string {
  const ms = at - now;
  const abs = Math.abs(ms);
  const text =
    abs < 60_000
      ? `${Math.floor(abs / 1000)} s`
      : abs < 3_600_000
        ? `${Math.floor(abs / 60_000)} min`
        : abs < 172_800_000
          ? `${Math.floor(abs / 3_600_000)} h`
          : `${Math.floor(abs / 86_400_000)} d`;
  return ms < 0 ? `${text} ago` : `in ${text}`;
}
