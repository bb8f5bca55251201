// Project overview: what happened to the newest release when it failed (step, code, message, hint,
// output tail, roll back / view logs), project health, enforced capacity, scheduled backups at a
// glance, the previews of open pull requests, ingress performance charts, and how to deploy when
// there is no release yet.
import { useState } from 'preact/hooks';
import { backupListResponseSchema, backupRoutes } from '../../../src/backups/contract.js';
import { routePath } from '../../../src/identity/contract.js';
import type { Project } from '../../../src/projects/contract.js';
import { releaseListResponseSchema, releaseRoutes, type Release, type ReleaseListResponse } from '../../../src/releases/contract.js';
import { AsyncView } from '../components/async-view.js';
import { ReleaseFailureDetails, rollbackTargetOf } from '../components/release-failure.js';
import { RelativeTime } from '../components/relative-time.js';
import { RollbackDialog } from '../components/rollback-dialog.js';
import { PerformancePanel } from '../components/performance-panel.js';
import { projectPage } from '../components/project-frame.js';
import { Empty, Pill, StatusNotice } from '../components/status.js';
import { ProjectUsageCard } from '../components/usage-card.js';
import { ProjectPreviews } from '../components/project-previews.js';
import { formatBytes, formatRelative, shortId } from '../lib/format.js';
import { useApi } from '../lib/use-api.js';
import { Link } from '../router.js';

/** One-line health verdict from the project state and its newest release. Pure. */
export function healthOf(project: Project, releases: ReleaseListResponse | undefined): { tone: 'ok' | 'bad' | 'warn' | 'idle'; text: string } {
  const newest = releases?.releases[0];
  if (!project.status.activeReleaseId) {
    if (newest?.status === 'failed') return { tone: 'bad', text: 'Not serving: the only deploy failed' };
    if (newest?.status === 'candidate') return { tone: 'warn', text: 'First deploy in progress' };
    return { tone: 'idle', text: 'Not deployed yet' };
  }
  if (newest?.status === 'failed') return { tone: 'warn', text: 'Serving the previous release; the newest deploy failed' };
  if (newest?.status === 'candidate') return { tone: 'warn', text: 'Serving; a deploy is in progress' };
  return { tone: 'ok', text: 'Healthy: the active release passed its health check' };
}

function Usage({ label, used, limit, format, id }: { label: string; used: number; limit: number; format: (n: number) => string; id: string }) {
  return (
    <div class="usage">
      <div class="usage-label">
        <span>{label}</span>
        <span id={id}>
          {format(used)} of {format(limit)}
        </span>
      </div>
      <meter min={0} max={limit} value={used} low={limit * 0.7} high={limit * 0.9} optimum={0} aria-label={`${label}: ${format(used)} of ${format(limit)}`} />
    </div>
  );
}

function Overview({ project }: { project: Project }) {
  const base = `/projects/${encodeURIComponent(project.slug)}`;
  const releases = useApi(routePath(releaseRoutes.releases, { id: project.id }), releaseListResponseSchema);
  const backups = useApi(routePath(backupRoutes.backups, { id: project.id }), backupListResponseSchema);
  const health = releases.data || releases.error ? healthOf(project, releases.data) : { tone: 'idle' as const, text: 'Checking…' };
  const active = releases.data?.releases.find((r) => r.id === releases.data?.activeReleaseId);
  const newest = releases.data?.releases[0];
  const [rollbackTarget, setRollbackTarget] = useState<Release | null>(null);
  const [message, setMessage] = useState('');

  return (
    <>
      <StatusNotice message={message} id="overview-rollback-result" />
      {releases.data && newest?.status === 'failed' && newest.failure ? (
        <NewestFailure base={base} failed={newest} active={active} list={releases.data} onRollBack={setRollbackTarget} />
      ) : null}
      {rollbackTarget && releases.data ? (
        <RollbackDialog
          project={project}
          target={rollbackTarget}
          active={active}
          list={releases.data}
          onClose={() => setRollbackTarget(null)}
          onDone={(result) => {
            setMessage(`Rolled back: release ${result.release.id} is active${result.restoredData ? ' and the database was restored from the snapshot' : ''}.`);
            releases.reload();
          }}
        />
      ) : null}
      <div class="grid-2">
        <section class="card" aria-labelledby="health-title">
          <h2 id="health-title">Project health</h2>
          <p id="site-health">
            <Pill tone={health.tone}>{health.tone === 'ok' ? 'healthy' : health.tone === 'idle' ? 'idle' : health.tone === 'bad' ? 'down' : 'attention'}</Pill>{' '}
            {health.text}
          </p>
          <dl class="facts">
            <dt>Active release</dt>
            <dd id="active-release">{active ? <Link href={`${base}/releases`}>{shortId(active.id)}</Link> : '—'}</dd>
            <dt>Activated</dt>
            <dd>{active ? <RelativeTime iso={active.activatedAt} /> : '—'}</dd>
            <dt>Health route</dt>
            <dd>{active ? <code>{active.config.healthPath}</code> : '—'}</dd>
            <dt>Address</dt>
            <dd>
              <a href={project.status.url} target="_blank" rel="noopener noreferrer">
                {project.status.url}
              </a>
            </dd>
          </dl>
        </section>
        <section class="card" aria-labelledby="capacity-title">
          <h2 id="capacity-title">Capacity</h2>
          <AsyncView state={releases} feature="Storage usage">
            {(r) => (
              <>
                <Usage
                  id="storage-usage"
                  label="Deployment storage"
                  used={r.storage.usage.totalBytes}
                  limit={r.storage.limits.maxStorageBytes}
                  format={formatBytes}
                />
                <Usage
                  id="artifact-usage"
                  label="Retained releases"
                  used={r.storage.usage.retainedArtifacts}
                  limit={r.storage.limits.maxRetainedArtifacts}
                  format={String}
                />
                <p class="muted small-text">
                  Releases {formatBytes(r.storage.usage.bundleBytes)} · database {formatBytes(r.storage.usage.databaseBytes)} · snapshots{' '}
                  {formatBytes(r.storage.usage.snapshotBytes)}. Deploys beyond these limits are refused; remove old releases on the{' '}
                  <Link href={`${base}/releases`}>Releases</Link> page.
                </p>
              </>
            )}
          </AsyncView>
          <h3>Backups</h3>
          {backups.error?.routeMissing ? (
            <p class="muted">Backups are not available on this server.</p>
          ) : backups.data ? (
            <p id="backup-summary">
              {backups.data.schedule ? (
                <>
                  Every {backups.data.schedule.intervalMinutes} min · last success {formatRelative(backups.data.schedule.lastSuccessAt)}
                  {backups.data.schedule.overdue ? (
                    <>
                      {' '}
                      <Pill tone="bad">overdue</Pill>
                    </>
                  ) : null}
                </>
              ) : (
                'No schedule. '
              )}{' '}
              <Link href={`${base}/backups`}>{backups.data.backups.length} backup(s)</Link>
            </p>
          ) : null}
        </section>
      </div>
      {releases.data && releases.data.releases.length === 0 ? <GettingStarted project={project} /> : null}
      <ProjectPreviews project={project} />
      <ProjectUsageCard projectId={project.id} />
      <PerformancePanel projectId={project.id} />
    </>
  );
}

/** The newest release failed: say what happened, prominently, before anything else. */
function NewestFailure({
  base,
  failed,
  active,
  list,
  onRollBack,
}: {
  base: string;
  failed: Release;
  active: Release | undefined;
  list: ReleaseListResponse;
  onRollBack(target: Release): void;
}) {
  const target = rollbackTargetOf(list);
  return (
    <section class="card release-failure" aria-labelledby="failure-title" id="release-failure">
      <h2 id="failure-title">The newest deploy failed</h2>
      <p>
        Release <code title={failed.id}>{shortId(failed.id)}</code> failed at <strong>{failed.failure!.step}</strong>{' '}
        <RelativeTime iso={failed.finishedAt ?? failed.createdAt} />.{' '}
        {active ? (
          <>
            Release <code title={active.id}>{shortId(active.id)}</code> is still serving; nothing changed for visitors.
          </>
        ) : (
          'Nothing is serving this project.'
        )}
      </p>
      <ReleaseFailureDetails
        failure={failed.failure!}
        releaseId={failed.id}
        base={base}
        rollBack={target ? { label: `Roll back to ${shortId(target.id)}`, open: () => onRollBack(target) } : undefined}
      />
    </section>
  );
}

function GettingStarted({ project }: { project: Project }) {
  const link = JSON.stringify(
    {
      version: 1,
      projectId: project.id,
      slug: project.slug,
      name: project.name,
      organizationId: project.organizationId,
      server: window.location.origin,
      linkedAt: project.createdAt,
    },
    null,
    2,
  );
  return (
    <section class="card" aria-labelledby="start-title">
      <h2 id="start-title">Deploy your app</h2>
      <Empty title="No releases yet">
        <p>
          Link an app directory to this project by saving the following as <code>.svc/project.json</code> in it, then run <code>svc deploy</code>. Or link a
          GitHub repository on the <Link href={`/projects/${encodeURIComponent(project.slug)}/github`}>GitHub</Link> page.
        </p>
        <pre class="code-block" id="link-file">
          {link}
        </pre>
      </Empty>
    </section>
  );
}

/** /projects/:slug */
export const ProjectOverviewPage = projectPage('overview', Overview);
