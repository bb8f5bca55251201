// Tables of the operations monitor: incidents (open first, then resolved) and the delivery state
// of their webhook notifications (attempts, next attempt, last error).
import type { OperationsState } from '../../../src/ops/contract.js';
import { formatRelative, formatTime, shortId } from '../lib/format.js';
import { DataTable } from './data-table.js';
import { Empty, Pill } from './status.js';

type Incident = OperationsState['incidents'][number];
type Notification = OperationsState['notifications'][number];

/** Epoch milliseconds → ISO (the formatters take ISO strings). Pure. */
export function isoOf(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined || !Number.isFinite(ms) ? null : new Date(ms).toISOString();
}

/** A one-line summary of an incident's details ("releaseId=… failureCode=…"). Pure. */
export function detailsText(details: Record<string, unknown>): string {
  return Object.entries(details)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
    .join(' ');
}

function projectLabel(projectId: string | null, names: ReadonlyMap<string, string>): string {
  if (projectId === null) return 'platform';
  return names.get(projectId) ?? shortId(projectId);
}

/** Open incidents first (newest first), then resolved ones (newest resolution first). */
export function IncidentsTable({ incidents, projectNames }: { incidents: Incident[]; projectNames: ReadonlyMap<string, string> }) {
  if (incidents.length === 0) return <Empty title="No incidents">Failed deploys, overdue backups and other conditions the monitor sees appear here.</Empty>;
  const open = incidents.filter((i) => i.resolvedAt === null).sort((a, b) => b.openedAt.localeCompare(a.openedAt));
  const resolved = incidents.filter((i) => i.resolvedAt !== null).sort((a, b) => (b.resolvedAt ?? '').localeCompare(a.resolvedAt ?? ''));
  return (
    <DataTable id="incidents-table" columns={['State', 'Kind', 'Project', 'Opened', 'Resolved', 'Details']}>
      {[...open, ...resolved].map((i) => (
        <tr key={i.id} data-incident={i.id} data-kind={i.kind} data-state={i.resolvedAt === null ? 'open' : 'resolved'}>
          <td>{i.resolvedAt === null ? <Pill tone="bad">open</Pill> : <Pill tone="ok">resolved</Pill>}</td>
          <td>
            <code>{i.kind}</code>
          </td>
          <td>{projectLabel(i.projectId, projectNames)}</td>
          <td title={formatTime(i.openedAt)}>{formatRelative(i.openedAt)}</td>
          <td title={formatTime(i.resolvedAt)}>{i.resolvedAt ? formatRelative(i.resolvedAt) : '—'}</td>
          <td class="small-text">{detailsText(i.details) || '—'}</td>
        </tr>
      ))}
    </DataTable>
  );
}

/** Webhook deliveries: pending ones first, with attempts, next attempt and the last error. */
export function NotificationsTable({ notifications }: { notifications: Notification[] }) {
  if (notifications.length === 0)
    return <Empty title="No notifications yet">Each incident opening and resolution is sent to the webhook and listed here.</Empty>;
  const rows = [...notifications].sort((a, b) => (a.status === b.status ? 0 : a.status === 'pending' ? -1 : 1));
  return (
    <DataTable id="notifications-table" columns={['Alert', 'Transition', 'Status', 'Attempts', 'Delivered / next attempt', 'Last error']}>
      {rows.map((n) => (
        <tr key={n.alertId} data-alert={n.alertId} data-status={n.status}>
          <td>
            <code title={n.alertId}>{shortId(n.alertId)}</code>
          </td>
          <td>{n.transition}</td>
          <td>{n.status === 'delivered' ? <Pill tone="ok">delivered</Pill> : <Pill tone={n.lastError ? 'bad' : 'warn'}>pending</Pill>}</td>
          <td>{n.attempts}</td>
          <td>
            {n.status === 'delivered' ? (
              <span title={formatTime(isoOf(n.deliveredAt))}>{formatRelative(isoOf(n.deliveredAt))}</span>
            ) : (
              <span title={formatTime(isoOf(n.nextAttemptAt))}>{formatRelative(isoOf(n.nextAttemptAt))}</span>
            )}
          </td>
          <td class={n.lastError ? 'failure small-text' : 'small-text'}>{n.lastError ?? '—'}</td>
        </tr>
      ))}
    </DataTable>
  );
}
