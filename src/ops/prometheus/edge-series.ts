// What the ingress process (the data plane in front of the control plane) knows and the control plane
// does not: the requests it is proxying now, per project (long ones such as live-query streams and
// WebSockets included), the platform requests it held while no control plane answered, and request
// records it had to drop. Asked over its command socket once per scrape; no answer (no ingress
// process, embedded platform) counts as none.
import { family, type SampledFamily } from './request-series.js';

/** The part of the ingress process's `routes` reply read here (src/ingress/edge/edge-control.ts). */
export type EdgeRoutesReply =
  | {
      ok: true;
      status: { holds: { count: number; unavailable: number }; routing: { recordsDropped: number } };
      routes?: readonly RouteCounts[];
    }
  | { ok: false }
  | null;

/** What a route table counts per project now. `liveStreams` is absent from ingress processes older than that count. */
export interface RouteCounts {
  projectId: string;
  inFlight: number;
  liveStreams?: number;
}

/** One count per project of several route tables added up. Pure. */
export function addCounts(count: 'inFlight' | 'liveStreams', ...tables: readonly (readonly RouteCounts[])[]): Map<string, number> {
  const total = new Map<string, number>();
  for (const table of tables) for (const route of table) total.set(route.projectId, (total.get(route.projectId) ?? 0) + (route[count] ?? 0));
  return total;
}

/** The families: in-flight requests of this process's table and the ingress process's, holds and dropped records. */
export function edgeFamilies(local: () => readonly RouteCounts[], askEdge: () => Promise<EdgeRoutesReply>): SampledFamily[] {
  // One question per scrape: every family below reads the same answer.
  let asked: { at: number; reply: Promise<EdgeRoutesReply> } | null = null;
  const edge = (): Promise<EdgeRoutesReply> => {
    if (asked === null || Date.now() - asked.at > 1_000) asked = { at: Date.now(), reply: askEdge() };
    return asked.reply;
  };
  const status = async () => {
    const reply = await edge();
    return reply?.ok ? reply.status : null;
  };
  // A gauge per project: one count of this process's route table and the ingress process's, added up.
  const perProject = (name: string, help: string, count: 'inFlight' | 'liveStreams'): SampledFamily =>
    family(name, help, 'gauge', async () => {
      const reply = await edge();
      const totals = addCounts(count, local(), reply?.ok ? (reply.routes ?? []) : []);
      return [...totals].map(([project, value]) => ({ labels: { project }, value }));
    });
  return [
    perProject(
      'svc_ingress_in_flight_requests',
      'Requests being proxied to each project now, by the control plane and the ingress process (open live-query streams and WebSockets included).',
      'inFlight',
    ),
    perProject(
      'svc_live_query_streams',
      'Open live-query streams (server-sent events of the svc runtime under its default /__svc prefix) per project, through the control plane and the ingress process.',
      'liveStreams',
    ),
    family(
      'svc_edge_held_requests_total',
      'Platform requests the ingress process held while no control plane answered (since it started).',
      'counter',
      async () => {
        const s = await status();
        return s ? [{ labels: {}, value: s.holds.count }] : [];
      },
    ),
    family('svc_edge_hold_unavailable_total', 'Held platform requests answered 503 because no control plane came back in time.', 'counter', async () => {
      const s = await status();
      return s ? [{ labels: {}, value: s.holds.unavailable }] : [];
    }),
    family(
      'svc_edge_records_dropped_total',
      'Request records the ingress process dropped before the control plane took them (missing from the ingress series).',
      'counter',
      async () => {
        const s = await status();
        return s ? [{ labels: {}, value: s.routing.recordsDropped }] : [];
      },
    ),
  ];
}
