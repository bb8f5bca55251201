// The project's preview environments (one per open pull request): number, title, commit, state and
// the preview's URL, with the live limit and the idle stop underneath. Previews come and go with
// pull requests, so this is a list to look at; tearing one down is `svc previews delete`.
import './project-previews.css';
import { routePath } from '../../../src/identity/contract.js';
import type { Project } from '../../../src/projects/contract.js';
import { previewListResponseSchema, previewRoutes, type Preview, type PreviewState } from '../../../src/previews/contract.js';
import { AsyncView } from './async-view.js';
import { DataTable } from './data-table.js';
import { RelativeTime } from './relative-time.js';
import { Empty, Pill } from './status.js';
import { useApi } from '../lib/use-api.js';
import { Link } from '../router.js';

const tones: Record<PreviewState, 'ok' | 'bad' | 'warn' | 'idle'> = { active: 'ok', deploying: 'warn', waiting: 'idle', sleeping: 'idle', failed: 'bad' };

/** "30 minutes", "2 hours", "45 seconds" for the idle stop. Pure. */
export function idleWords(ms: number): string {
  const [count, unit] = ms % 3_600_000 === 0 ? [ms / 3_600_000, 'hour'] : ms % 60_000 === 0 ? [ms / 60_000, 'minute'] : [Math.round(ms / 1000), 'second'];
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

function PreviewRow({ preview }: { preview: Preview }) {
  return (
    <tr>
      <td>#{preview.number}</td>
      <td class="preview-title">{preview.title}</td>
      <td>
        <code title={preview.headSha}>{preview.headSha.slice(0, 7)}</code>
      </td>
      <td>
        <Pill tone={tones[preview.state]}>{preview.state}</Pill>
      </td>
      <td class="preview-url">
        <a href={preview.url} target="_blank" rel="noopener noreferrer">
          {preview.url}
        </a>
      </td>
      <td>{preview.lastRequestAt ? <RelativeTime iso={preview.lastRequestAt} /> : 'never'}</td>
    </tr>
  );
}

/** The pull request number and production slug of a preview's own slug (`pr-<n>--<slug>`), else null. Pure. */
export function previewOfSlug(slug: string): { number: number; parentSlug: string } | null {
  const match = /^pr-([1-9][0-9]*)--(.+)$/.exec(slug);
  return match ? { number: Number(match[1]), parentSlug: match[2]! } : null;
}

/** The Previews card of the project overview; on a preview's own page, which pull request it is. */
export function ProjectPreviews({ project }: { project: Pick<Project, 'id' | 'slug'> }) {
  const of = previewOfSlug(project.slug);
  if (of) return <PreviewOf {...of} />;
  return <PreviewList projectId={project.id} />;
}

// A preview has no previews of its own (the API refuses with SVC_PREVIEW_NOT_PREVIEW), so its page says whose it is.
function PreviewOf({ number, parentSlug }: { number: number; parentSlug: string }) {
  return (
    <section class="card project-previews" aria-labelledby="previews-title">
      <h2 id="previews-title">Preview</h2>
      <p id="preview-of">
        This project is the preview of pull request #{number} of <Link href={`/projects/${encodeURIComponent(parentSlug)}`}>{parentSlug}</Link>. It is torn down
        when the pull request is closed or merged.
      </p>
    </section>
  );
}

function PreviewList({ projectId }: { projectId: string }) {
  const previews = useApi(routePath(previewRoutes.previews, { id: projectId }), previewListResponseSchema);
  return (
    <section class="card project-previews" aria-labelledby="previews-title">
      <h2 id="previews-title">Previews</h2>
      <AsyncView state={previews} feature="Previews">
        {(list) => (
          <>
            {list.previews.length === 0 ? (
              <Empty title="No previews">
                <p>
                  A preview starts when a pull request is opened against the linked branch of the linked repository: the svc GitHub App creates it and the
                  preview workflow deploys the pull request&apos;s commit to its own address. See <code>docs/previews.md</code>.
                </p>
              </Empty>
            ) : (
              <DataTable
                id="previews"
                caption="Previews of open pull requests"
                columns={['Pull request', 'Title', 'Commit', 'Status', 'Address', 'Last request']}
              >
                {[...list.previews]
                  .sort((a, b) => b.number - a.number)
                  .map((preview) => (
                    <PreviewRow key={preview.number} preview={preview} />
                  ))}
              </DataTable>
            )}
            <p class="muted small-text" id="preview-limit">
              {list.previews.length} of {list.limit} live previews;{' '}
              {list.idleStopMs === 0 ? 'idle previews are never stopped' : `idle previews stop after ${idleWords(list.idleStopMs)}`}.
            </p>
          </>
        )}
      </AsyncView>
    </section>
  );
}
