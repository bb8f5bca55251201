// What happened to a failed release: the step it failed at, the stable code, the message, the
// code's hint (delivered by the API) and the tail of its output, with "Roll back" and "View logs".
// `compact` is the releases table's form (the output tail behind a disclosure).
import './release-failure.css';
import type { Release, ReleaseFailure, ReleaseListResponse } from '../../../src/releases/contract.js';
import { Link } from '../router.js';

/** The one-line reason of a failure, e.g. "Deploy failed at health: /healthz did not answer 2xx". Pure. */
export function failureSentence(failure: ReleaseFailure): string {
  return `Deploy failed at ${failure.step}: ${failure.message}`;
}

export interface ReleaseFailureProps {
  failure: ReleaseFailure;
  releaseId: string;
  /** `/projects/<slug>` */
  base: string;
  /** Shown when a rollback is possible: opens the rollback dialog. */
  rollBack?: { label: string; open(): void } | undefined;
  compact?: boolean;
}

/** The failure details of one release. */
export function ReleaseFailureDetails({ failure, releaseId, base, rollBack, compact = false }: ReleaseFailureProps) {
  const tail = failure.outputTail ?? [];
  const logs = `${base}/logs?release=${encodeURIComponent(releaseId)}`;
  const output = (
    <pre class="code-block output-tail" data-testid="failure-output" aria-label="Last output lines before the failure">
      {tail.join('\n')}
    </pre>
  );
  return (
    <div class="release-failure-details" data-release={releaseId}>
      <dl>
        <dt>Step</dt>
        <dd data-testid="failure-step">{failure.step}</dd>
        <dt>Code</dt>
        <dd>
          <code data-testid="failure-code">{failure.code}</code>
        </dd>
        <dt>Message</dt>
        <dd data-testid="failure-message">{failure.message}</dd>
        {failure.hint ? (
          <>
            <dt>What to do</dt>
            <dd data-testid="failure-hint">
              {/* Registry hints mark commands with backticks (as docs/errors.md shows them). */}
              {failure.hint.split('`').map((piece, i) => (i % 2 ? <code key={i}>{piece}</code> : piece))}
            </dd>
          </>
        ) : null}
      </dl>
      {tail.length ? (
        compact ? (
          <details>
            <summary>Last {tail.length} output line(s)</summary>
            {output}
          </details>
        ) : (
          <>
            <p class="small-text muted">Last {tail.length} output line(s) before it failed:</p>
            {output}
          </>
        )
      ) : null}
      <div class="failure-actions">
        {rollBack ? (
          <button type="button" class={compact ? 'small' : ''} data-testid="failure-rollback" onClick={rollBack.open}>
            {rollBack.label}
          </button>
        ) : null}
        <Link href={logs} class={compact ? 'small-text' : ''} data-testid="failure-logs">
          View logs
        </Link>
      </div>
    </div>
  );
}

/**
 * The release a "Roll back" next to a failure goes to: the active release's predecessor when its files
 * are kept, else the newest inactive release with files (none: no rollback is offered). Pure.
 */
export function rollbackTargetOf(list: ReleaseListResponse): Release | undefined {
  const active = list.releases.find((r) => r.id === list.activeReleaseId);
  const kept = list.releases.filter((r) => r.status === 'inactive' && r.artifactRetained);
  return kept.find((r) => r.id === active?.predecessorId) ?? kept[0];
}
