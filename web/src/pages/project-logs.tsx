// App logs: the newest lines, then a live tail that follows new output until paused; `?release=<id>`
// shows one release's lines (a failed release's "View logs").
import { useEffect, useRef, useState } from 'preact/hooks';
import { routePath } from '../../../src/identity/contract.js';
import type { Project } from '../../../src/projects/contract.js';
import { releaseRoutes, type LogEntryWire } from '../../../src/releases/contract.js';
import { projectPage } from '../components/project-frame.js';
import { Empty, ErrorBox } from '../components/status.js';
import { followLogs } from '../lib/follow-logs.js';
import { formatTime, shortId } from '../lib/format.js';
import { Link, useLocation } from '../router.js';

const MAX_LINES = 2000;
type Stream = '' | 'stdout' | 'stderr' | 'system';

function Logs({ project }: { project: Project }) {
  const [entries, setEntries] = useState<LogEntryWire[]>([]);
  const [live, setLive] = useState(true);
  const [stream, setStream] = useState<Stream>('');
  const [error, setError] = useState<Error | undefined>();
  const [connected, setConnected] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const releaseId = useLocation().query.get('release') || undefined;

  useEffect(() => {
    if (!live) return;
    const controller = new AbortController();
    setEntries([]);
    setError(undefined);
    setConnected(true);
    let pending: LogEntryWire[] = [];
    let frame = 0;
    // Batch lines per animation frame: a chatty app must not re-render per line.
    const flush = () => {
      frame = 0;
      const batch = pending;
      pending = [];
      setEntries((old) => [...old, ...batch].slice(-MAX_LINES));
    };
    followLogs(
      routePath(releaseRoutes.logs, { id: project.id }),
      { limit: 200, stream: stream || undefined, releaseId },
      (entry) => {
        pending.push(entry);
        if (!frame) frame = requestAnimationFrame(flush);
      },
      controller.signal,
    ).then(
      () => !controller.signal.aborted && (setConnected(false), setLive(false)),
      (caught: Error) => {
        setError(caught);
        setConnected(false);
        setLive(false);
      },
    );
    return () => {
      controller.abort();
      if (frame) cancelAnimationFrame(frame);
      setConnected(false);
    };
  }, [project.id, live, stream, releaseId]);

  useEffect(() => {
    const el = box.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [entries]);

  return (
    <section class="card" aria-labelledby="logs-title">
      <div class="card-head">
        <h2 id="logs-title">Logs</h2>
        <div class="toolbar">
          <label for="log-stream" class="visually-hidden">
            Stream
          </label>
          <select id="log-stream" value={stream} onChange={(e) => setStream((e.target as HTMLSelectElement).value as Stream)}>
            <option value="">All streams</option>
            <option value="stdout">stdout</option>
            <option value="stderr">stderr</option>
            <option value="system">platform</option>
          </select>
          <button type="button" id="log-live" class={live ? 'secondary' : ''} onClick={() => setLive(!live)} aria-pressed={live}>
            {live ? 'Pause live tail' : 'Resume live tail'}
          </button>
        </div>
      </div>
      {releaseId ? (
        <p class="small-text" id="log-release">
          Lines of release <code title={releaseId}>{shortId(releaseId)}</code> only ·{' '}
          <Link href={`/projects/${encodeURIComponent(project.slug)}/logs`}>show every release</Link>
        </p>
      ) : null}
      <p class="muted small-text" role="status" id="log-state">
        {connected ? 'Live: new lines appear as the app writes them.' : 'Paused.'}
      </p>
      {error ? <ErrorBox error={error} feature="Logs" /> : null}
      {entries.length === 0 && !error ? (
        <Empty title="No log lines yet">
          <p class="muted">Output of the app and platform messages about its releases appear here.</p>
        </Empty>
      ) : (
        <div
          ref={box}
          class="log-box"
          id="log-lines"
          tabIndex={0}
          role="log"
          aria-label="Log lines"
          onScroll={(e) => {
            const el = e.currentTarget;
            stick.current = el.scrollTop + el.clientHeight >= el.scrollHeight - 8;
          }}
        >
          {entries.map((e, i) => (
            <div key={i} class={`log-line log-${e.stream}`}>
              <span class="log-time">{formatTime(e.time)}</span> <span class="log-stream">{e.stream}</span> <span class="log-text">{e.line}</span>
            </div>
          ))}
        </div>
      )}
    </section>
  );
}

/** /projects/:slug/logs */
export const ProjectLogsPage = projectPage('logs', Logs);
