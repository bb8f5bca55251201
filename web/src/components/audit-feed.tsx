// The audit feed (workspace or one project) as sentences with links and relative times, newest
// first; "Show older" follows nextCursor.
import { useEffect, useState } from 'preact/hooks';
import { auditPageSchema, type AuditEvent } from '../../../src/audit/contract.js';
import { api, type ApiError } from '../api/client.js';
import { describeEvent, type SentenceContext } from '../lib/event-sentences.js';
import { EventSentence } from './event-sentence.js';
import { RelativeTime } from './relative-time.js';
import { Empty, ErrorBox, Loading } from './status.js';

/**
 * Feed of `path` (GET /api/audit or /api/projects/:id/audit) with optional extra query. `projectSlugs`
 * (project id → slug) names and links the projects of a workspace feed; `projectSlug` is the one project of a project feed.
 */
export function AuditFeed({
  path,
  query,
  projectSlugs,
  projectSlug,
}: {
  path: string;
  query?: Record<string, string | undefined>;
  projectSlugs?: Map<string, string>;
  projectSlug?: string;
}) {
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
  const slugOf = (projectId: string) => projectSlug ?? projectSlugs?.get(projectId) ?? null;
  const context: SentenceContext = {
    projectPath: (projectId) => {
      const slug = slugOf(projectId);
      return slug ? `/projects/${encodeURIComponent(slug)}` : null;
    },
  };
  return (
    <>
      <ol class="feed" id="audit-feed">
        {events.map((e) => (
          <li key={e.id} data-kind={e.kind}>
            <div class="sentence">
              <EventSentence parts={describeEvent(e, context)} />
            </div>
            <div class="muted small-text">
              <RelativeTime iso={e.createdAt} />
              {e.projectId && !projectSlug ? ` · project ${slugOf(e.projectId) ?? `${e.projectId} (deleted)`}` : ''}
              {` · ${e.kind}`}
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
