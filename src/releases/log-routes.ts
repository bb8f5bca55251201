// GET /api/projects/:id/logs: the project's app logs (stdout, stderr and platform lines), newest N
// oldest first; with follow=true the backlog and then live entries as NDJSON (or SSE).
import { z } from 'zod';
import { bearerOrSession, type HttpApp } from '../core/http/create-http-app.js';
import { SvcError } from '../core/errors.js';
import { isoTime, type FeatureContext } from '../core/feature-context.js';
import { requireProjectPermission } from '../projects/index.js';
import type { LogEntry, LogFilter, LogStore } from '../../runner/release-driver.js';
import { LOG_STREAM_MEDIA_TYPE, logsQuerySchema, logsResponseSchema, releaseRoutes as r, type LogEntryWire } from './contract.js';

/** `since` as ISO 8601 or epoch milliseconds. Pure. */
export function parseSince(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(ms)) throw new SvcError('SVC_VALIDATION', 'since must be an ISO 8601 time or milliseconds since the epoch');
  return ms;
}

function wire(entry: LogEntry): LogEntryWire {
  return { time: isoTime(entry.time), stream: entry.stream, releaseId: entry.releaseId, line: entry.line };
}

/** Register the logs route; `followers` is aborted on shutdown so open streams never hold the server. */
export function logRoutes(ctx: FeatureContext, logs: LogStore, followers: Set<AbortController>) {
  return async function register(app: HttpApp): Promise<void> {
    app.get(
      r.logs,
      {
        schema: {
          tags: ['releases'],
          security: bearerOrSession,
          summary: 'App logs of the project (follow=true streams NDJSON or SSE)',
          params: z.object({ id: z.string().min(1).max(100) }),
          querystring: logsQuerySchema,
          response: { 200: logsResponseSchema },
        },
      },
      async (request, reply) => {
        const { project } = requireProjectPermission(ctx, request, request.params.id, 'read');
        const q = request.query;
        const filter: LogFilter = { limit: q.limit };
        const since = parseSince(q.since);
        if (since !== undefined) filter.since = since;
        if (q.stream) filter.stream = q.stream;
        if (q.releaseId) filter.releaseId = q.releaseId;
        const backlog = logs.read(project.id, filter);
        if (!q.follow) return { entries: backlog.map(wire) };

        const sse = String(request.headers.accept ?? '').includes('text/event-stream');
        const controller = new AbortController();
        followers.add(controller);
        reply.hijack();
        const raw = reply.raw;
        raw.writeHead(200, {
          'content-type': sse ? 'text/event-stream; charset=utf-8' : `${LOG_STREAM_MEDIA_TYPE}; charset=utf-8`,
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
        });
        const write = (entry: LogEntry): void => {
          const json = JSON.stringify(wire(entry));
          raw.write(sse ? `data: ${json}\n\n` : `${json}\n`);
        };
        request.raw.once('close', () => controller.abort());
        const { limit: _limit, ...live } = filter;
        // Subscribe before writing the backlog so nothing appended meanwhile is missed.
        const stream = logs.follow(project.id, live, controller.signal);
        const first = stream.next();
        for (const entry of backlog) write(entry);
        try {
          for (let next = await first; !next.done; next = await stream.next()) write(next.value);
        } finally {
          followers.delete(controller);
          raw.end();
        }
      },
    );
  };
}
