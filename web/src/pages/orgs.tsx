// Organizations you belong to, with your role; create a new one.
import { useState } from 'preact/hooks';
import { identityRoutes, orgListResponseSchema, orgResponseSchema } from '../../../src/identity/contract.js';
import { api } from '../api/client.js';
import { AsyncView } from '../components/async-view.js';
import { Field, inputValue } from '../components/form-field.js';
import { useTitle } from '../components/layout.js';
import { ErrorBox } from '../components/status.js';
import { formatTime } from '../lib/format.js';
import { useApi } from '../lib/use-api.js';
import { useAction } from '../lib/use-action.js';
import { Link, navigate } from '../router.js';

/** /orgs */
export function OrgsPage() {
  useTitle('Organizations');
  const state = useApi(identityRoutes.orgs, orgListResponseSchema);
  const [name, setName] = useState('');
  const action = useAction();
  return (
    <>
      <h1>Organizations</h1>
      <AsyncView state={state}>
        {(d) => (
          <ul class="plain-list" id="org-list">
            {d.organizations.map((o) => (
              <li key={o.id}>
                <Link href={`/orgs/${encodeURIComponent(o.slug)}`}>{o.name}</Link>{' '}
                <span class="muted small-text">
                  {o.slug} · {o.role} · since {formatTime(o.createdAt)}
                </span>
              </li>
            ))}
          </ul>
        )}
      </AsyncView>
      <section class="card narrow-card" aria-labelledby="org-new-title">
        <h2 id="org-new-title">New organization</h2>
        <form
          class="stack"
          onSubmit={action.submit(async () => {
            const { organization } = await api('POST', identityRoutes.orgs, { body: { name: name.trim() }, schema: orgResponseSchema });
            navigate(`/orgs/${encodeURIComponent(organization.slug)}`);
          })}
        >
          <Field id="org-name" label="Name" required maxLength={100} value={name} onInput={(e) => setName(inputValue(e))} />
          <button type="submit" id="org-create" disabled={action.busy || !name.trim()}>
            Create organization
          </button>
          {action.error ? <ErrorBox error={action.error} /> : null}
        </form>
      </section>
    </>
  );
}
