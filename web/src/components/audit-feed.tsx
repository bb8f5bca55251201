// The audit feed (workspace or one project): newest first, "Show older" follows nextCursor.
import { useEffect, useState } from 'preact/hooks';
import { auditPageSchema, type AuditEvent } from '../../../src/audit/contract.js';
import { api, type ApiError } from '../api/client.js';
import { formatRelative, formatTime } from '../lib/format.js';
import { Empty, ErrorBox, Loading } from './status.js';

/** A short, safe summary of an event's metadata (scalars only). Pure. */
export function summarizeMetadata(metadata: Record<string, unknown>): string {
  return Object.entries(metadata)
    .filter(([, v]) => v !== null && ['string', 'number', 'boolean'].includes(typeof v))
    .slice(0, 5)
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join(' · ');
}

/** Feed of `path` (GET /api/audit or /api/projects/:id/audit) with optional extra query. */
export function AuditFeed({ path, query, projectNames }: { path: string; query?: Record<string, string | undefined>; projectNames?: Map<string, string> }) {
  const [events, setEvents] = useState<AuditEvent[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | undefined>();
  const [loading, setLoading] = useState(true);
  const key = JSON.stringify([path, query]);

  const load = async (before: string | null, signal?: AbortSignal) => {
    setLoading(true);
    setError(undefined);
    try {
      const page = await api('GET', path, {
        query: { ...query, limit: 50, before: before ?? undefined },
        schema: auditPageSchema,
        ...(signal ? { signal } : {}),
      });
      if (signal?.aborted) return;
      setEvents((old) => (before ? [...old, ...page.events] : page.events));
      setCursor(page.nextCursor);
    } catch (caught) {
      if (!signal?.aborted) setError(caught as ApiError);
    } finally {
      if (!signal?.aborted) setLoading(false);
    }
  };

  useEffect(() => {
    const controller = new AbortController();
    setEvents([]);
    void load(null, controller.signal);
    return () => controller.abort();
  }, [key]);

  if (error && events.length === 0) return <ErrorBox error={error} retry={() => void load(null)} feature="The audit feed" />;
  if (loading && events.length === 0) return <Loading />;
  if (events.length === 0) return <Empty title="No activity yet" />;
  return (
    <>
      <ol class="feed" id="audit-feed">
        {events.map((e) => (
          <li key={e.id} data-kind={e.kind}>
            <div>
              <code class="kind">{e.kind}</code> by <strong>{e.actor.name ?? e.actor.id}</strong> <span class="muted small-text">({e.actor.type})</span>
              {e.projectId ? <span class="muted small-text"> · {projectNames?.get(e.projectId) ?? e.projectId}</span> : null}
            </div>
            <div class="muted small-text">
              <time dateTime={e.createdAt} title={formatTime(e.createdAt)}>
                {formatRelative(e.createdAt)}
              </time>
              {Object.keys(e.metadata).length ? ` · ${summarizeMetadata(e.metadata)}` : ''}
            </div>
          </li>
        ))}
      </ol>
      {error ? <ErrorBox error={error} /> : null}
      {cursor ? (
        <button type="button" class="secondary" id="audit-older" disabled={loading} onClick={() => void load(cursor)}>
          {loading ? 'Loading…' : 'Show older'}
        </button>
      ) : null}
    </>
  );
}
