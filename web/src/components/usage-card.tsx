// Metered ingress usage of the current UTC month (requests, transfer) with quota and forecast:
// the project's card (GET /api/projects/:id/usage) and the workspace's (GET /api/orgs/:id/usage).
import { routePath } from '../../../src/identity/contract.js';
import { usageResponseSchema, workspaceUsageResponseSchema, type UsageResponse, type WorkspaceUsageResponse } from '../../../src/ops/contract.js';
import { formatBytes, formatTime } from '../lib/format.js';
import { exhaustionText, forecastText, formatCount, quotaText } from '../lib/usage-text.js';
import { useApi } from '../lib/use-api.js';
import { Link } from '../router.js';
import { AsyncView } from './async-view.js';
import { DataTable } from './data-table.js';
import { Empty, Pill } from './status.js';

/** Routes of the usage API (src/ops/usage). */
export const usageApi = {
  project: '/api/projects/:id/usage',
  workspace: '/api/orgs/:id/usage',
} as const;

/** The month's usage table (one row per quantity) plus the warning badge; `id` prefixes element ids. */
export function UsageSummary({ data, id }: { data: UsageResponse; id: string }) {
  const rows = [
    { key: 'requests', label: 'Requests', used: data.usage.requests, quota: data.usage.quota.requests, forecast: data.forecast.requests, format: formatCount },
    {
      key: 'transfer',
      label: 'Transfer',
      used: data.usage.transferBytes,
      quota: data.usage.quota.transferBytes,
      forecast: data.forecast.transferBytes,
      format: formatBytes,
    },
  ];
  const warning = rows.some((r) => r.forecast.warning);
  const period = `${formatTime(new Date(data.usage.period.start).toISOString())} – ${formatTime(new Date(data.usage.period.end).toISOString())}`;
  return (
    <>
      <p id={`${id}-status`}>
        {warning ? (
          <Pill tone="warn">
            <span id={`${id}-warning`}>warning: near or over quota</span>
          </Pill>
        ) : (
          <Pill tone="ok">within quota</Pill>
        )}{' '}
        <span class="muted small-text">Billing period: the UTC calendar month, {period} in your time zone.</span>
      </p>
      <DataTable id={`${id}-table`} columns={['Quantity', 'So far', 'Quota', 'Forecast', 'Estimated exhaustion']}>
        {rows.map((r) => (
          <tr key={r.key} data-quantity={r.key} data-warning={String(r.forecast.warning)}>
            <th scope="row">{r.label}</th>
            <td id={`${id}-${r.key}`}>{r.format(r.used)}</td>
            <td id={`${id}-${r.key}-quota`}>{quotaText(r.quota, r.format)}</td>
            <td id={`${id}-${r.key}-forecast`}>
              {forecastText(r.forecast, r.format)} {r.forecast.warning ? <Pill tone="warn">warning</Pill> : null}
            </td>
            <td id={`${id}-${r.key}-exhaustion`}>{exhaustionText(r.forecast.estimatedExhaustionAt)}</td>
          </tr>
        ))}
      </DataTable>
    </>
  );
}

/** "Usage this month" card of a project's overview. */
export function ProjectUsageCard({ projectId }: { projectId: string }) {
  const state = useApi(routePath(usageApi.project, { id: projectId }), usageResponseSchema);
  return (
    <section class="card" aria-labelledby="project-usage-title">
      <h2 id="project-usage-title">Usage this month</h2>
      <AsyncView state={state} feature="Usage">
        {(d) => <UsageSummary data={d} id="project-usage" />}
      </AsyncView>
    </section>
  );
}

function WorkspaceProjects({ data }: { data: WorkspaceUsageResponse }) {
  if (data.projects.length === 0) return <Empty title="No projects yet">Usage of this organization's projects adds up here.</Empty>;
  return (
    <DataTable id="workspace-usage-projects" columns={['Project', 'Requests', 'Transfer']}>
      {data.projects.map((p) => (
        <tr key={p.projectId} data-project={p.slug}>
          <td>
            <Link href={`/projects/${encodeURIComponent(p.slug)}`}>{p.slug}</Link>
          </td>
          <td>{formatCount(p.requests)}</td>
          <td>{formatBytes(p.transferBytes)}</td>
        </tr>
      ))}
    </DataTable>
  );
}

/** "Workspace usage" card of an organization page: totals, forecast and each project's share. */
export function WorkspaceUsageCard({ org }: { org: string }) {
  const state = useApi(routePath(usageApi.workspace, { id: org }), workspaceUsageResponseSchema);
  return (
    <section class="card" aria-labelledby="workspace-usage-title">
      <h2 id="workspace-usage-title">Workspace usage</h2>
      <AsyncView state={state} feature="Workspace usage">
        {(d) => (
          <>
            <UsageSummary data={d} id="workspace-usage" />
            <h3>By project</h3>
            <WorkspaceProjects data={d} />
            {d.truncated ? (
              <p class="muted small-text" id="workspace-usage-truncated">
                This workspace has more than 1,000 projects: the totals cover the first 1,000.
              </p>
            ) : null}
          </>
        )}
      </AsyncView>
    </section>
  );
}
