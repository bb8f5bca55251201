// Restore drill receipts of the operations state, when the server reports them (`drills`). The
// field is newer than the console's contract, so it is read leniently and may be absent.
import { z } from 'zod';
import { formatRelative, formatTime, shortId } from '../lib/format.js';
import { DataTable } from './data-table.js';
import { isoOf } from './operations-incidents.js';
import { Empty, Pill } from './status.js';

const time = z.union([z.number(), z.string()]).nullable().optional();
const receiptSchema = z.looseObject({
  id: z.string().optional(),
  projectId: z.string(),
  backupId: z.string().optional(),
  releaseId: z.string().nullable().optional(),
  outcome: z.string(),
  startedAt: time,
  finishedAt: time,
  code: z.string().nullable().optional(),
  error: z.string().nullable().optional(),
  checks: z.array(z.looseObject({ name: z.string().optional(), path: z.string().optional(), ok: z.boolean() })).optional(),
});
// A plain list of receipts, or an object holding one (e.g. `{ receipts: [...] }`).
const drillsSchema = z.union([z.array(receiptSchema), z.looseObject({ receipts: z.array(receiptSchema) }).transform((d) => d.receipts)]);

/** Receipts from the operations state's `drills` field: null when the server sends none, 'unreadable' when their shape is unknown. Pure. */
export function readDrills(state: object): z.infer<typeof receiptSchema>[] | null | 'unreadable' {
  const raw = (state as { drills?: unknown }).drills;
  if (raw === undefined || raw === null) return null;
  const parsed = drillsSchema.safeParse(raw);
  return parsed.success ? parsed.data : 'unreadable';
}

function iso(value: number | string | null | undefined): string | null {
  return typeof value === 'number' ? isoOf(value) : (value ?? null);
}

/** The newest restore drill receipts (outcome, checks, error code). */
export function DrillReceipts({ drills, projectNames }: { drills: NonNullable<ReturnType<typeof readDrills>>; projectNames: ReadonlyMap<string, string> }) {
  if (drills === 'unreadable') return <p class="muted">This server reports restore drills in a shape this console does not know yet.</p>;
  if (drills.length === 0)
    return <Empty title="No restore drills yet">Drills restore the newest backup into a scratch copy and check that the app answers.</Empty>;
  return (
    <DataTable id="drills-table" columns={['Project', 'Outcome', 'Started', 'Checks', 'Error']}>
      {drills.map((d, index) => (
        <tr
          key={d.id ?? `${d.projectId}-${String(d.startedAt ?? index)}`}
          data-drill-outcome={d.outcome}
          title={d.backupId ? `backup ${d.backupId}${d.releaseId ? `, release ${d.releaseId}` : ''}` : undefined}
        >
          <td>{projectNames.get(d.projectId) ?? shortId(d.projectId)}</td>
          <td>
            <Pill tone={d.outcome === 'passed' ? 'ok' : 'bad'}>{d.outcome}</Pill>
          </td>
          <td title={formatTime(iso(d.startedAt))}>{formatRelative(iso(d.startedAt))}</td>
          <td class="small-text">{d.checks ? `${d.checks.filter((c) => c.ok).length}/${d.checks.length} passed` : '—'}</td>
          <td class="small-text">
            {d.code ? <code class="code">{d.code}</code> : null} {d.error ?? (d.code ? '' : '—')}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
