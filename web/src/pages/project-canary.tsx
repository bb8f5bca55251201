// Canary reports: each rollout's state, policy, and per-stage traffic share, samples, error rate and
// p95 against the thresholds, with the failure that stopped it.
import { canaryReportResponseSchema, canaryRoutePaths, type CanaryRunReport } from '../../../src/canary/contract.js';
import { routePath } from '../../../src/identity/contract.js';
import type { Project } from '../../../src/projects/contract.js';
import { AsyncView } from '../components/async-view.js';
import { DataTable } from '../components/data-table.js';
import { projectPage } from '../components/project-frame.js';
import { Empty, Pill } from '../components/status.js';
import { formatMs, formatPercent, formatRelative, formatTime, shortId } from '../lib/format.js';
import { useApi } from '../lib/use-api.js';

const runTone = { running: 'warn', promoted: 'ok', failed: 'bad', rejected: 'bad', interrupted: 'idle' } as const;
const stageTone = { running: 'warn', passed: 'ok', failed: 'bad', interrupted: 'idle' } as const;

function Run({ run }: { run: CanaryRunReport }) {
  return (
    <section class="card" aria-label={`Canary of ${run.releaseId}`} data-canary={run.id}>
      <div class="card-head">
        <h2>
          <code>{shortId(run.releaseId)}</code> <Pill tone={runTone[run.state]}>{run.state}</Pill>
        </h2>
        <span class="muted small-text" title={formatTime(run.startedAt)}>
          started {formatRelative(run.startedAt)}
          {run.baselineReleaseId ? ` · baseline ${shortId(run.baselineReleaseId)}` : ''}
        </span>
      </div>
      <p class="muted small-text">
        Thresholds: error rate ≤ {formatPercent(run.policy.maximumErrorRate)}, p95 ≤ {formatMs(run.policy.maximumP95Ms)}.
      </p>
      {run.failure ? (
        <p class="failure">
          {run.failure.message} <code>{run.failure.code}</code>
        </p>
      ) : null}
      <DataTable columns={['Stage', 'Traffic', 'State', 'Samples', 'Error rate', 'p95', 'Reason']}>
        {run.stages.map((s) => (
          <tr key={s.index}>
            <td>{s.index + 1}</td>
            <td>{s.trafficPercent} %</td>
            <td>
              <Pill tone={stageTone[s.state]}>{s.state}</Pill>
            </td>
            <td>
              {s.samples} / {run.policy.stages[s.index]?.minimumSamples ?? '—'}
            </td>
            <td>{formatPercent(s.errorRate)}</td>
            <td>{formatMs(s.p95Ms)}</td>
            <td class="small-text">{s.reason ?? '—'}</td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}

function Canary({ project }: { project: Project }) {
  const state = useApi(routePath(canaryRoutePaths.report, { id: project.id }), canaryReportResponseSchema);
  return (
    <AsyncView state={state} feature="Canary reports">
      {(data) =>
        data.runs.length === 0 ? (
          <Empty title="No canary rollouts yet">
            <p>
              Deploy with <code>svc deploy --canary</code> to send a share of traffic to the new release in stages and promote it only while it stays healthy.
            </p>
          </Empty>
        ) : (
          data.runs.map((run) => <Run key={run.id} run={run} />)
        )
      }
    </AsyncView>
  );
}

/** /projects/:slug/canary */
export const ProjectCanaryPage = projectPage('canary', Canary);
