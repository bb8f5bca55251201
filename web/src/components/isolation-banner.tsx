// A banner under the top bar of every page while apps on this server run without isolation (or with
// a shared network) or cannot start at all: such a setting must be seen, not only logged.
import { isolationResponseSchema, isolationRoutes, type Isolation } from '../../../src/releases/contract.js';
import { useApi } from '../lib/use-api.js';

/** The banner's heading for an isolation that carries a warning. Pure. */
export function isolationHeading(isolation: Isolation): string {
  if (!isolation.available) return 'Apps cannot start';
  if (isolation.mode === 'unsandboxed') return 'Apps run without isolation';
  return 'Apps are not fully isolated';
}

/** Loads GET /api/isolation once per signed-in session; renders nothing when isolation is as by default. */
export function IsolationBanner() {
  const { data } = useApi(isolationRoutes.isolation, isolationResponseSchema);
  const isolation = data?.isolation;
  if (!isolation?.warning) return null;
  return (
    <div class="isolation-banner" id="isolation-banner" role="alert" data-mode={isolation.mode} data-available={String(isolation.available)}>
      <strong>{isolationHeading(isolation)}:</strong> {isolation.warning}
      {isolation.problem ? (
        <>
          {' '}
          <code class="code">{isolation.problem.code}</code>
        </>
      ) : null}
      <span class="muted"> · docs/security.md</span>
    </div>
  );
}
