// GET …/releases/:releaseId/events: a release's steps as the transaction records them (NDJSON), then
// one `end` line with its final row. Steps come from the in-process hub while this process runs the
// transaction; otherwise (a runner node's deploy, another process) from the row's step, read every
// quarter second. The stream ends when the release is no longer a candidate or the client leaves; for
// the target of a rollback running here (not a candidate) when the rollback ends, the end line then
// saying how it ended.
import { bearerOrSession, type HttpApp } from '../core/http/create-http-app.js';
import type { FeatureContext } from '../core/feature-context.js';
import { requireProjectPermission } from '../projects/index.js';
import { RELEASE_EVENTS_MEDIA_TYPE, releaseEventSchema, releaseParamsSchema, releaseRoutes, type ReleaseEvent, type ReleaseStepEvent } from './contract.js';
import type { ReleaseEventHub } from './release-events.js';
import { getRelease, getReleaseById, toRelease, type ReleaseRow } from './release-store.js';

const POLL_MS = 250;
// A blank line now and then keeps proxies and the client's idle bound from cutting a long health wait.
const KEEP_ALIVE_MS = 10_000;

/** Register the events route; `followers` is aborted on shutdown so open streams never hold the server. */
export function releaseEventRoutes(ctx: FeatureContext, hub: ReleaseEventHub, followers: Set<AbortController>) {
  return async function register(app: HttpApp): Promise<void> {
    app.get(
      releaseRoutes.events,
      {
        schema: {
          tags: ['releases'],
          security: bearerOrSession,
          summary: `Follow a release's steps as they happen (${RELEASE_EVENTS_MEDIA_TYPE}: step lines, then one end line with the release)`,
          params: releaseParamsSchema,
          // Documents one line of the stream (the route writes the lines itself).
          response: { 200: releaseEventSchema.describe(`one line of the ${RELEASE_EVENTS_MEDIA_TYPE} stream`) },
        },
      },
      async (request, reply) => {
        const { project } = requireProjectPermission(ctx, request, request.params.id, 'read');
        const row = getRelease(ctx, project.id, request.params.releaseId);
        const controller = new AbortController();
        followers.add(controller);
        reply.hijack();
        const raw = reply.raw;
        raw.writeHead(200, {
          'content-type': `${RELEASE_EVENTS_MEDIA_TYPE}; charset=utf-8`,
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
        });
        request.raw.once('close', () => controller.abort());
        try {
          await followRelease(ctx, hub, row, controller.signal, (event) => raw.write(event ? `${JSON.stringify(event)}\n` : '\n'));
        } finally {
          followers.delete(controller);
          raw.end();
        }
      },
    );
  };
}

async function followRelease(
  ctx: FeatureContext,
  hub: ReleaseEventHub,
  start: ReleaseRow,
  signal: AbortSignal,
  write: (event: ReleaseEvent | null) => void,
): Promise<void> {
  const queue: Array<ReleaseStepEvent | 'end'> = [];
  let wake: (() => void) | undefined;
  const live = hub.follow(start.id, (event) => {
    queue.push(event);
    wake?.();
  });
  let lastStep = start.step;
  let row = start;
  // A rollback's target is not a candidate: only the hub's end says the rollback is over.
  const rollingBack = live.backlog !== null && start.status !== 'candidate';
  // A rollback that ended before this follower came: its steps are replayed before the end.
  const ended = live.backlog === null && start.status !== 'candidate' ? hub.endedRollback(start.id) : null;
  try {
    if (live.backlog) queue.unshift(...live.backlog);
    else if (ended) queue.push(...ended.steps);
    else if (row.status === 'candidate' && row.step) write({ type: 'step', step: row.step, at: new Date().toISOString() });
    let over = false;
    let quietSince = Date.now();
    while (!signal.aborted) {
      for (const event of queue.splice(0)) {
        if (event === 'end') over = true;
        else {
          write(event);
          lastStep = event.step;
          quietSince = Date.now();
        }
      }
      row = getReleaseById(ctx, start.id) ?? row;
      if (over || (!rollingBack && row.status !== 'candidate')) break;
      // Not run here (or not any more): the row's step is all there is to report.
      if (!live.backlog && row.step && row.step !== lastStep) {
        write({ type: 'step', step: row.step, at: new Date().toISOString() });
        lastStep = row.step;
        quietSince = Date.now();
      }
      if (Date.now() - quietSince >= KEEP_ALIVE_MS) {
        write(null);
        quietSince = Date.now();
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, POLL_MS);
        function done(): void {
          clearTimeout(timer);
          wake = undefined;
          signal.removeEventListener('abort', done);
          resolve();
        }
        wake = done;
        signal.addEventListener('abort', done, { once: true });
      });
    }
  } finally {
    live.stop();
  }
  if (signal.aborted) return;
  const rollback = start.status === 'candidate' ? null : hub.endedRollback(start.id)?.outcome;
  write({ type: 'end', at: new Date().toISOString(), release: toRelease(ctx, row), ...(rollback ? { rollback } : {}) });
}
