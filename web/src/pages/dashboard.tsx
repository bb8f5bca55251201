// Home: every organization you belong to with its projects, their state and address.
import { dashboardResponseSchema, projectRoutes, type Project } from '../../../src/projects/contract.js';
import { AsyncView } from '../components/async-view.js';
import { useTitle } from '../components/layout.js';
import { Empty, Pill } from '../components/status.js';
import { useApi } from '../lib/use-api.js';
import { Link } from '../router.js';

/** Tone of a project state pill. Pure. */
export function stateTone(state: string): 'ok' | 'bad' | 'warn' | 'idle' {
  if (state === 'active') return 'ok';
  if (state === 'failed' || state === 'stopped') return 'bad';
  if (state === 'new') return 'idle';
  return 'warn';
}

function ProjectCard({ project }: { project: Project }) {
  return (
    <li class="project-card">
      <Link href={`/projects/${encodeURIComponent(project.slug)}`} class="project-link">
        <span class="project-name">{project.name}</span>
        <span class="muted">{project.slug}</span>
      </Link>
      <Pill tone={stateTone(project.status.state)}>{project.status.state}</Pill>
      <a class="muted small-text" href={project.status.url} target="_blank" rel="noopener noreferrer">
        {project.status.url.replace(/^https?:\/\//, '')}
      </a>
    </li>
  );
}

/** / */
export function DashboardPage() {
  useTitle('Projects');
  const state = useApi(projectRoutes.dashboard, dashboardResponseSchema);
  return (
    <>
      <div class="page-head">
        <h1>Projects</h1>
        <Link href="/new-project" class="button" id="new-project">
          New project
        </Link>
      </div>
      <AsyncView state={state}>
        {(d) => {
          const total = d.organizations.reduce((n, o) => n + o.projects.length, 0);
          return (
            <>
              {total === 0 ? (
                <Empty title="No projects yet">
                  <p>
                    Create one here, or run <code>svc deploy</code> in an app directory: the first deploy creates and links a project.
                  </p>
                </Empty>
              ) : null}
              {d.organizations
                .filter((o) => o.projects.length > 0)
                .map((o) => (
                  <section key={o.id} aria-labelledby={`org-${o.id}`}>
                    <h2 id={`org-${o.id}`}>
                      {o.name} <span class="muted small-text">{o.role}</span>
                    </h2>
                    <ul class="project-grid">
                      {o.projects.map((p) => (
                        <ProjectCard key={p.id} project={p} />
                      ))}
                    </ul>
                  </section>
                ))}
            </>
          );
        }}
      </AsyncView>
    </>
  );
}
