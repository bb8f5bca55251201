// Custom domains: the always-routed default host, added domains, add and remove.
import { useState } from 'preact/hooks';
import { routePath } from '../../../src/identity/contract.js';
import { domainListResponseSchema, domainResponseSchema, domainRoutes, removeDomainResponseSchema, type Project } from '../../../src/projects/contract.js';
import { api } from '../api/client.js';
import { AsyncView } from '../components/async-view.js';
import { ConfirmDelete } from '../components/confirm-delete.js';
import { Field, inputValue } from '../components/form-field.js';
import { projectPage } from '../components/project-frame.js';
import { Empty, ErrorBox } from '../components/status.js';
import { formatTime } from '../lib/format.js';
import { useApi } from '../lib/use-api.js';
import { useAction } from '../lib/use-action.js';

function Domains({ project }: { project: Project }) {
  const state = useApi(routePath(domainRoutes.domains, { id: project.id }), domainListResponseSchema);
  const [domain, setDomain] = useState('');
  const [removing, setRemoving] = useState<string | null>(null);
  const action = useAction();

  return (
    <AsyncView state={state} feature="Custom domains">
      {(data) => (
        <>
          <section class="card" aria-labelledby="domains-title">
            <h2 id="domains-title">Domains</h2>
            <p>
              Default address (always routed): <code id="default-host">{data.defaultHost}</code>
            </p>
            {data.domains.length === 0 ? (
              <Empty title="No custom domains">
                <p class="muted">
                  Point a DNS record (CNAME or A) at this platform, then add the name here. The edge proxy asks the platform before issuing a certificate.
                </p>
              </Empty>
            ) : (
              <ul class="plain-list" id="domain-list">
                {data.domains.map((d) => (
                  <li key={d.domain}>
                    <code>{d.domain}</code> <span class="muted small-text">added {formatTime(d.createdAt)}</span>{' '}
                    <button type="button" class="small secondary" onClick={() => setRemoving(d.domain)}>
                      Remove
                    </button>
                  </li>
                ))}
              </ul>
            )}
          </section>
          <section class="card" aria-labelledby="domain-add-title">
            <h2 id="domain-add-title">Add a domain</h2>
            <form
              class="stack"
              onSubmit={action.submit(async () => {
                await api('POST', routePath(domainRoutes.domains, { id: project.id }), { body: { domain: domain.trim() }, schema: domainResponseSchema });
                setDomain('');
                state.reload();
              })}
            >
              <Field
                id="domain-name"
                label="Domain"
                placeholder="www.example.com"
                required
                autoComplete="off"
                value={domain}
                onInput={(e) => setDomain(inputValue(e))}
              />
              <button type="submit" id="domain-add" disabled={action.busy || !domain.trim()}>
                Add domain
              </button>
              {action.error ? <ErrorBox error={action.error} /> : null}
            </form>
          </section>
          {removing ? (
            <ConfirmDelete
              title={`Remove ${removing}`}
              confirmLabel="Remove domain"
              path={routePath(domainRoutes.domain, { id: project.id, domain: removing })}
              schema={removeDomainResponseSchema}
              onDeleted={state.reload}
              onClose={() => setRemoving(null)}
            >
              <p>Requests for this name stop reaching the app at once.</p>
            </ConfirmDelete>
          ) : null}
        </>
      )}
    </AsyncView>
  );
}

/** /projects/:slug/domains */
export const ProjectDomainsPage = projectPage('domains', Domains);
