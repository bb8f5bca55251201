// Frame of every project page: loads the project (by slug or id), shows its name, state and
// address, and the project's sections as a tab row; the page gets the loaded project.
import type { ComponentChildren, ComponentType } from 'preact';
import { routePath } from '../../../src/identity/contract.js';
import { projectResponseSchema, projectRoutes, type Project } from '../../../src/projects/contract.js';
import { useApi } from '../lib/use-api.js';
import { Link } from '../router.js';
import { AsyncView } from './async-view.js';
import { useTitle } from './layout.js';
import { Pill } from './status.js';
import { stateTone } from '../pages/dashboard.js';

export const projectTabs = [
  { key: 'overview', label: 'Overview', path: '' },
  { key: 'releases', label: 'Releases', path: '/releases' },
  { key: 'canary', label: 'Canary', path: '/canary' },
  { key: 'logs', label: 'Logs', path: '/logs' },
  { key: 'secrets', label: 'Secrets', path: '/secrets' },
  { key: 'backups', label: 'Backups', path: '/backups' },
  { key: 'domains', label: 'Domains', path: '/domains' },
  { key: 'github', label: 'GitHub', path: '/github' },
  { key: 'recovery', label: 'Recovery', path: '/recovery' },
  { key: 'activity', label: 'Activity', path: '/activity' },
  { key: 'settings', label: 'Settings', path: '/settings' },
] as const;
export type ProjectTab = (typeof projectTabs)[number]['key'];

/** Load project `slug` and render `children(project)` inside the project header and tabs. */
export function ProjectFrame({
  slug,
  tab,
  children,
}: {
  slug: string;
  tab: ProjectTab;
  children: (project: Project, reload: () => void) => ComponentChildren;
}) {
  const state = useApi(routePath(projectRoutes.project, { id: slug }), projectResponseSchema);
  const label = projectTabs.find((t) => t.key === tab)?.label ?? '';
  useTitle(`${state.data?.project.name ?? slug} · ${label}`);
  const base = `/projects/${encodeURIComponent(slug)}`;
  return (
    <>
      <div class="page-head">
        <div>
          <p class="crumbs">
            <Link href="/">Projects</Link> /
          </p>
          <h1 id="project-title">{state.data?.project.name ?? slug}</h1>
          {state.data ? (
            <p class="muted">
              <Pill tone={stateTone(state.data.project.status.state)}>{state.data.project.status.state}</Pill>{' '}
              <a href={state.data.project.status.url} target="_blank" rel="noopener noreferrer" id="project-url">
                {state.data.project.status.url}
              </a>
            </p>
          ) : null}
        </div>
      </div>
      <nav class="tabs" aria-label="Project sections">
        {projectTabs.map((t) => (
          <Link key={t.key} href={`${base}${t.path}`} aria-current={t.key === tab ? 'page' : undefined} id={`tab-${t.key}`}>
            {t.label}
          </Link>
        ))}
      </nav>
      <AsyncView state={state}>{(d) => children(d.project, state.reload)}</AsyncView>
    </>
  );
}

/** The page of project tab `tab`: `Body` rendered for the loaded project inside the frame. */
export function projectPage(tab: ProjectTab, Body: ComponentType<{ project: Project }>) {
  return function ProjectPage({ slug }: { slug: string }) {
    return (
      <ProjectFrame slug={slug} tab={tab}>
        {(project) => <Body project={project} />}
      </ProjectFrame>
    );
  };
}
