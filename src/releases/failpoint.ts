// Named failpoints for crash tests: `SVC_FAILPOINT=after-snapshot` makes the control plane SIGKILL
// itself when the release transaction reaches that point (nothing runs after it, as in a power cut).

/** Points the release transaction and rollback pass through, in order. */
export const failpointNames = [
  'after-lock',
  'after-extract',
  'after-stop',
  'after-snapshot',
  'after-migrate',
  'after-start',
  'after-health',
  'after-activate',
  'after-fail-restore',
  'rollback-after-stop',
  'rollback-after-restore',
] as const;
export type FailpointName = (typeof failpointNames)[number];

/** Called at each failpoint. */
export type Failpoint = (name: FailpointName) => void;

/** The failpoint hook of this process: kill -9 itself at `SVC_FAILPOINT` (comma-separated names), else nothing. */
export function failpointFromEnv(env: Readonly<Record<string, string | undefined>>): Failpoint {
  const armed = new Set(
    (env.SVC_FAILPOINT ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
  if (armed.size === 0) return () => undefined;
  return (name) => {
    if (armed.has(name)) process.kill(process.pid, 'SIGKILL');
  };
}
