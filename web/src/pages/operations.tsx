// Operations (platform admin): the monitor's state (interval, last pass, incidents, webhook
// deliveries, restore drills when reported), "Run pass now", and the audit export's delivery status.
import { useMemo, useState } from 'preact/hooks';
import { z } from 'zod';
import { auditExportStatusSchema, operationsRunSchema, operationsStateSchema, type OperationsState } from '../../../src/ops/contract.js';
import { dashboardResponseSchema, projectRoutes } from '../../../src/projects/contract.js';
import { api } from '../api/client.js';
import { AdminOnly, isAdminRequired } from '../components/admin-only.js';
import { AsyncView } from '../components/async-view.js';
import { DrillReceipts, readDrills } from '../components/drill-receipts.js';
import { useTitle } from '../components/layout.js';
import { IncidentsTable, isoOf, NotificationsTable } from '../components/operations-incidents.js';
import { RunnerNodes } from '../components/runner-nodes.js';
import { ErrorBox, Loading, Pill, StatusNotice } from '../components/status.js';
import { formatRelative, formatTime } from '../lib/format.js';
import { useApi } from '../lib/use-api.js';
import { useAction } from '../lib/use-action.js';

/** Routes of the admin operations API (src/ops: operations-routes.ts, audit-export-routes.ts). */
export const operationsApi = {
  state: '/api/admin/operations',
  run: '/api/admin/operations/run',
  auditExport: '/api/admin/audit-export',
} as const;

type Pass = NonNullable<OperationsState['lastPass']>;

// `drills` is newer than some servers: validated leniently by readDrills (absent = no drills section);
// loose keeps fields newer than this console's contract instead of stripping them.
const stateSchema = operationsStateSchema.extend({ drills: z.unknown().optional() }).loose();
type State = z.infer<typeof stateSchema>;

/** "every 60 s" / "manual passes only". Pure. */
export function intervalText(intervalMs: number | false): string {
  if (intervalMs === false) return 'manual passes only';
  return intervalMs % 60_000 === 0 ? `every ${intervalMs / 60_000} min` : `every ${Math.round(intervalMs / 1000)} s`;
}

/** "opened 2, resolved 0, delivered 2, failed 0". Pure. */
export function passText(pass: Pass): string {
  const extra = [pass.sourceErrors ? `${pass.sourceErrors} source error(s)` : '', pass.drill ? `restore drill ${pass.drill.outcome}` : ''].filter(Boolean);
  return `${pass.projects} project(s) checked, ${pass.conditions} condition(s); opened ${pass.opened}, resolved ${pass.resolved}, delivered ${pass.delivered}, failed ${pass.failed}${extra.map((e) => `, ${e}`).join('')}`;
}

function PassStats({ pass }: { pass: Pass }) {
  const cells: [string, number][] = [
    ['Projects', pass.projects],
    ['Conditions', pass.conditions],
    ['Opened', pass.opened],
    ['Resolved', pass.resolved],
    ['Delivered', pass.delivered],
    ['Failed', pass.failed],
    ['Source errors', pass.sourceErrors],
    ...(pass.jobs === undefined ? [] : [['Jobs checked', pass.jobs] as [string, number]]),
  ];
  return (
    <dl class="stats" id="last-pass">
      {cells.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function Monitor({ state, reload, projectNames }: { state: State; reload(): void; projectNames: ReadonlyMap<string, string> }) {
  const run = useAction();
  const [message, setMessage] = useState('');
  const drills = readDrills(state);
  const open = state.incidents.filter((i) => i.resolvedAt === null).length;
  return (
    <>
      <section class="card" aria-labelledby="monitor-title">
        <div class="card-head">
          <h2 id="monitor-title">Monitor</h2>
          <button
            type="button"
            id="ops-run"
            disabled={run.busy || !state.configured}
            onClick={() =>
              void run.run(async () => {
                setMessage('');
                const { pass } = await api('POST', operationsApi.run, { schema: operationsRunSchema });
                setMessage(`Pass finished: ${passText(pass)}.`);
                reload();
              })
            }
          >
            {run.busy ? 'Running…' : 'Run pass now'}
          </button>
        </div>
        <p id="monitor-status">
          {state.configured ? <Pill tone="ok">on</Pill> : <Pill tone="idle">off</Pill>}{' '}
          {state.configured
            ? `Schedule: ${intervalText(state.intervalMs)}.`
            : 'The monitor is not configured: set SVC_OPS_WEBHOOK_URL and SVC_OPS_WEBHOOK_SECRET on the control plane. Incidents recorded earlier are still listed.'}{' '}
          {open > 0 ? <Pill tone="bad">{`${open} open`}</Pill> : <Pill tone="ok">no open incidents</Pill>}
        </p>
        {run.error ? <ErrorBox error={run.error} /> : null}
        <StatusNotice message={message} id="ops-run-result" />
        {state.lastPass ? (
          <>
            <p class="muted">
              Last pass <span title={formatTime(state.lastPassAt)}>{formatRelative(state.lastPassAt)}</span>
            </p>
            <PassStats pass={state.lastPass} />
          </>
        ) : (
          <p class="muted">No pass has run since the control plane started.</p>
        )}
      </section>
      <section class="card" aria-labelledby="incidents-title">
        <h2 id="incidents-title">Incidents</h2>
        <IncidentsTable incidents={state.incidents} projectNames={projectNames} />
      </section>
      <section class="card" aria-labelledby="notifications-title">
        <h2 id="notifications-title">Notifications</h2>
        <NotificationsTable notifications={state.notifications} />
      </section>
      {drills !== null ? (
        <section class="card" aria-labelledby="drills-title">
          <h2 id="drills-title">Restore drills</h2>
          <DrillReceipts drills={drills} projectNames={projectNames} />
        </section>
      ) : null}
    </>
  );
}

function AuditExport() {
  const state = useApi(operationsApi.auditExport, auditExportStatusSchema);
  return (
    <section class="card" aria-labelledby="audit-export-title">
      <h2 id="audit-export-title">Audit export</h2>
      <AsyncView state={state} feature="Audit export">
        {(s) => (
          <>
            <p id="audit-export-status">
              {!s.configured ? (
                <Pill tone="idle">off</Pill>
              ) : s.lastError ? (
                <Pill tone="bad">failing</Pill>
              ) : s.pending > 0 ? (
                <Pill tone="warn">{`${s.pending} pending`}</Pill>
              ) : (
                <Pill tone="ok">up to date</Pill>
              )}{' '}
              {s.configured
                ? `Signed with key ${s.keyId ?? '—'}.`
                : 'Not configured: set SVC_AUDIT_EXPORT_* on the control plane to export signed audit entries.'}
            </p>
            <dl class="facts">
              <dt>Acknowledged through</dt>
              <dd>
                #{s.checkpoint.sequence} <code class="small-text">{s.checkpoint.digest.slice(0, 16)}</code>
              </dd>
              <dt>Signed through</dt>
              <dd>#{s.signedThrough}</dd>
              <dt>Audit log through</dt>
              <dd>#{s.auditThrough}</dd>
              <dt>Pending</dt>
              <dd>{s.pending}</dd>
              <dt>Attempts</dt>
              <dd>{s.attempts}</dd>
              <dt>Last error</dt>
              <dd class={s.lastError ? 'failure' : undefined}>{s.lastError ?? '—'}</dd>
              <dt>Last attempt</dt>
              <dd title={formatTime(isoOf(s.lastAttemptAt))}>{formatRelative(isoOf(s.lastAttemptAt))}</dd>
              <dt>Last success</dt>
              <dd title={formatTime(isoOf(s.lastSuccessAt))}>{formatRelative(isoOf(s.lastSuccessAt))}</dd>
              <dt>Next attempt</dt>
              <dd title={formatTime(isoOf(s.nextAttemptAt))}>{formatRelative(isoOf(s.nextAttemptAt))}</dd>
            </dl>
          </>
        )}
      </AsyncView>
    </section>
  );
}

/** /operations */
export function OperationsPage() {
  useTitle('Operations');
  const state = useApi(operationsApi.state, stateSchema);
  const dashboard = useApi(projectRoutes.dashboard, dashboardResponseSchema);
  const projectNames = useMemo(
    () => new Map((dashboard.data?.organizations ?? []).flatMap((o) => o.projects.map((p) => [p.id, p.slug] as const))),
    [dashboard.data],
  );
  const head = (
    <>
      <h1>Operations</h1>
      <p class="muted">
        The operations monitor (failed deploys, overdue backups and other conditions, alerted through a signed webhook) and the signed audit export.
      </p>
    </>
  );
  if (isAdminRequired(state.error)) {
    return (
      <>
        {head}
        <AdminOnly feature="The operations page" />
      </>
    );
  }
  return (
    <>
      {head}
      {state.data ? (
        <>
          {state.error ? <ErrorBox error={state.error} retry={state.reload} /> : null}
          <Monitor state={state.data} reload={state.reload} projectNames={projectNames} />
        </>
      ) : state.error ? (
        <ErrorBox error={state.error} retry={state.reload} feature="Operations" />
      ) : (
        <Loading />
      )}
      <AuditExport />
      <RunnerNodes />
    </>
  );
}
