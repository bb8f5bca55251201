// "Runner nodes" card of the Operations page: enrolled nodes with region, status, placed projects
// against capacity, labels and last heartbeat (GET /api/admin/nodes, platform admin only).
import { nodeListSchema, type nodeViewSchema } from '../../../src/nodes/contract.js';
import type { z } from 'zod';
import { formatRelative, formatTime } from '../lib/format.js';
import { labelsText } from '../lib/usage-text.js';
import { useApi } from '../lib/use-api.js';
import { AdminOnly, isAdminRequired } from './admin-only.js';
import { AsyncView } from './async-view.js';
import { DataTable } from './data-table.js';
import { Empty, Pill } from './status.js';

/** Route of the node list (src/nodes/node-routes.ts). */
export const nodesApi = { list: '/api/admin/nodes' } as const;

type NodeView = z.infer<typeof nodeViewSchema>;

const tones = { ready: 'ok', draining: 'warn', offline: 'bad' } as const;

function NodesTable({ nodes }: { nodes: NodeView[] }) {
  if (nodes.length === 0)
    return (
      <Empty title="No runner nodes enrolled">Create a registration token and enroll a node with the runner agent; it appears here with its status.</Empty>
    );
  return (
    <DataTable id="nodes-table" columns={['Node', 'Region', 'Status', 'Placed / capacity', 'Labels', 'Last seen']}>
      {nodes.map((n) => (
        <tr key={n.id} data-node={n.id} data-status={n.status}>
          <td>
            <code>{n.id}</code>
          </td>
          <td>{n.region}</td>
          <td>
            <Pill tone={tones[n.status]}>{n.status}</Pill>
          </td>
          <td>
            {n.placed} / {n.capacity}
          </td>
          <td class="small-text">{labelsText(n.labels)}</td>
          <td title={formatTime(n.lastSeenAt)}>{n.lastSeenAt ? formatRelative(n.lastSeenAt) : 'never'}</td>
        </tr>
      ))}
    </DataTable>
  );
}

/** The runner nodes card; a 403 shows the "platform admin only" state, a missing route "not available". */
export function RunnerNodes() {
  const state = useApi(nodesApi.list, nodeListSchema);
  return (
    <section class="card" aria-labelledby="nodes-title">
      <h2 id="nodes-title">Runner nodes</h2>
      {isAdminRequired(state.error) ? (
        <AdminOnly feature="The runner node list" />
      ) : (
        <AsyncView state={state} feature="Runner nodes">
          {(d) => <NodesTable nodes={d.nodes} />}
        </AsyncView>
      )}
    </section>
  );
}
