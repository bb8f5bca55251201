// GitHub: link the project to a repository branch (pushes are built by the Action and released),
// see the link's health and recent svc/* checks with links to the commit and check run. Without a
// GitHub App on this control plane "Link repository" is disabled and says what the operator must set.
import { useState } from 'preact/hooks';
import { githubRoutes, installationsResponseSchema, linkResponseSchema, type GithubLink } from '../../../src/github/contract.js';
import { routePath } from '../../../src/identity/contract.js';
import type { Project } from '../../../src/projects/contract.js';
import { api } from '../api/client.js';
import { AsyncView } from '../components/async-view.js';
import { ConfirmDelete } from '../components/confirm-delete.js';
import { Field, inputValue } from '../components/form-field.js';
import { projectPage } from '../components/project-frame.js';
import { Empty, ErrorBox, Pill } from '../components/status.js';
import { formatRelative } from '../lib/format.js';
import { useApi } from '../lib/use-api.js';
import { useAction } from '../lib/use-action.js';

/** What is missing when no GitHub App is configured, and how an operator configures one. */
function AppMissing() {
  return (
    <div class="notice" id="github-app-missing">
      <p>
        <strong>No GitHub App is configured on this control plane</strong>, so a repository cannot be linked yet and pushes are not picked up.
      </p>
      <p>
        An operator creates the App from <code>app.yml</code> in the svc repository, then starts svc with <code>APP_ID</code>, <code>PRIVATE_KEY</code> (or{' '}
        <code>PRIVATE_KEY_PATH</code>) and <code>WEBHOOK_SECRET</code> set (<code>GHE_HOST</code> for GitHub Enterprise Server). Step by step:{' '}
        <code>docs/github.md</code>, “Create the app from app.yml” and “Configure svc”.
      </p>
    </div>
  );
}

function LinkForm({ project, link, configured, onSaved }: { project: Project; link: GithubLink | null; configured: boolean; onSaved(): void }) {
  const installations = useApi(githubRoutes.installations, installationsResponseSchema);
  const [repository, setRepository] = useState(link?.repository.fullName ?? '');
  const [branch, setBranch] = useState(link?.branch ?? 'main');
  const [environment, setEnvironment] = useState(link?.environment ?? 'production');
  const action = useAction();
  const repos = (installations.data?.installations ?? []).filter((i) => i.status === 'active').flatMap((i) => i.repositories.map((r) => r.fullName));
  return (
    <form
      class="stack"
      onSubmit={action.submit(async () => {
        await api('PUT', routePath(githubRoutes.link, { id: project.id }), {
          body: { repository: repository.trim(), branch: branch.trim(), environment: environment.trim() },
          schema: linkResponseSchema,
        });
        onSaved();
      })}
    >
      <Field
        id="github-repository"
        label="Repository (owner/name)"
        list="github-repos"
        required
        autoComplete="off"
        value={repository}
        onInput={(e) => setRepository(inputValue(e))}
      />
      <datalist id="github-repos">
        {repos.map((r) => (
          <option key={r} value={r} />
        ))}
      </datalist>
      <div class="row-fields">
        <Field id="github-branch" label="Branch" required value={branch} onInput={(e) => setBranch(inputValue(e))} />
        <Field id="github-environment" label="Deployment environment" required value={environment} onInput={(e) => setEnvironment(inputValue(e))} />
      </div>
      <button type="submit" id="github-link-save" disabled={action.busy || !configured} {...(configured ? {} : { 'aria-describedby': 'github-app-missing' })}>
        {link ? 'Update link' : 'Link repository'}
      </button>
      {action.error ? <ErrorBox error={action.error} /> : null}
    </form>
  );
}

function Github({ project }: { project: Project }) {
  const state = useApi(routePath(githubRoutes.link, { id: project.id }), linkResponseSchema);
  const [unlinking, setUnlinking] = useState(false);
  return (
    <AsyncView state={state} feature="GitHub integration">
      {(data) => {
        const repo = data.link ? `https://github.com/${data.link.repository.fullName}` : null;
        return (
          <>
            {!data.configured ? <AppMissing /> : null}
            <section class="card" aria-labelledby="link-title">
              <h2 id="link-title">Repository</h2>
              {data.link && repo ? (
                <p id="github-link">
                  <a href={repo} target="_blank" rel="noopener noreferrer">
                    {data.link.repository.fullName}
                  </a>{' '}
                  branch <code>{data.link.branch}</code> → environment <code>{data.link.environment}</code>{' '}
                  <Pill tone={data.link.status === 'ok' ? 'ok' : 'bad'}>{data.link.status}</Pill>
                  {data.link.problem ? <span class="small-text failure"> {data.link.problem.message}</span> : null}{' '}
                  <button type="button" class="small secondary" onClick={() => setUnlinking(true)}>
                    Unlink
                  </button>
                </p>
              ) : (
                <p class="muted">Not linked. Pushes to the linked branch are built by the svc Action and released here.</p>
              )}
              <LinkForm key={data.link?.createdAt ?? 'new'} project={project} link={data.link} configured={data.configured} onSaved={state.reload} />
            </section>
            <section class="card" aria-labelledby="checks-title">
              <h2 id="checks-title">Recent checks</h2>
              {data.checks.length === 0 ? (
                <Empty title="No checks yet" />
              ) : (
                <ul class="plain-list">
                  {data.checks.map((c) => (
                    <li key={`${c.name}-${c.sha}-${c.updatedAt}`}>
                      <code>{c.name}</code>{' '}
                      <Pill tone={c.state === 'success' ? 'ok' : c.state === 'failure' || c.state === 'timed_out' ? 'bad' : 'warn'}>{c.state}</Pill>{' '}
                      {repo ? (
                        <a href={`${repo}/commit/${c.sha}`} target="_blank" rel="noopener noreferrer">
                          {c.sha.slice(0, 7)}
                        </a>
                      ) : (
                        c.sha.slice(0, 7)
                      )}{' '}
                      {repo && c.checkRunId ? (
                        <a href={`${repo}/runs/${c.checkRunId}`} target="_blank" rel="noopener noreferrer">
                          check run
                        </a>
                      ) : null}{' '}
                      <span class="muted small-text">{formatRelative(c.updatedAt)}</span>
                    </li>
                  ))}
                </ul>
              )}
            </section>
            {unlinking ? (
              <ConfirmDelete
                title="Unlink the repository"
                confirmLabel="Unlink"
                path={routePath(githubRoutes.link, { id: project.id })}
                schema={linkResponseSchema}
                onDeleted={state.reload}
                onClose={() => setUnlinking(false)}
              >
                <p>Pushes stop creating releases. Existing releases are kept.</p>
              </ConfirmDelete>
            ) : null}
          </>
        );
      }}
    </AsyncView>
  );
}

/** /projects/:slug/github */
export const ProjectGithubPage = projectPage('github', Github);
