// Secrets: names and timestamps only (values are write-only), set or replace a value, delete.
import { useState } from 'preact/hooks';
import { routePath } from '../../../src/identity/contract.js';
import type { Project } from '../../../src/projects/contract.js';
import { checkSecretName, deleteSecretResponseSchema, secretListResponseSchema, secretRoutes, setSecretResponseSchema } from '../../../src/secrets/contract.js';
import { api } from '../api/client.js';
import { AsyncView } from '../components/async-view.js';
import { ConfirmDelete } from '../components/confirm-delete.js';
import { DataTable } from '../components/data-table.js';
import { Field, inputValue } from '../components/form-field.js';
import { projectPage } from '../components/project-frame.js';
import { Empty, ErrorBox, StatusNotice } from '../components/status.js';
import { formatRelative, formatTime } from '../lib/format.js';
import { useApi } from '../lib/use-api.js';
import { useAction } from '../lib/use-action.js';

function Secrets({ project }: { project: Project }) {
  const state = useApi(routePath(secretRoutes.secrets, { id: project.id }), secretListResponseSchema);
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [removing, setRemoving] = useState<string | null>(null);
  const [message, setMessage] = useState('');
  const action = useAction();
  const problem = name ? checkSecretName(name) : null;

  const save = action.submit(async () => {
    const done = await api('PUT', routePath(secretRoutes.secret, { id: project.id, name }), { body: { value }, schema: setSecretResponseSchema });
    setMessage(`${done.secret.name} ${done.created ? 'created' : 'replaced'}. It applies on the next release or restart.`);
    setName('');
    setValue('');
    state.reload();
  });

  return (
    <AsyncView state={state} feature="Secrets">
      {(data) => (
        <>
          <section class="card" aria-labelledby="secrets-title">
            <h2 id="secrets-title">Secrets</h2>
            <p class="muted">
              Values are encrypted at rest and never shown again. Apps receive them as environment variables from their next release or restart.
            </p>
            <StatusNotice message={message} />
            {data.secrets.length === 0 ? (
              <Empty title="No secrets" />
            ) : (
              <DataTable id="secrets-table" columns={['Name', 'Updated']} actions>
                {data.secrets.map((s) => (
                  <tr key={s.name}>
                    <td>
                      <code>{s.name}</code>
                    </td>
                    <td title={formatTime(s.updatedAt)}>{formatRelative(s.updatedAt)}</td>
                    <td class="row-actions">
                      <button type="button" class="small secondary" onClick={() => setRemoving(s.name)}>
                        Delete
                      </button>
                    </td>
                  </tr>
                ))}
              </DataTable>
            )}
          </section>
          <section class="card" aria-labelledby="secret-set-title">
            <h2 id="secret-set-title">Set a secret</h2>
            <form class="stack" onSubmit={save}>
              <Field
                id="secret-name"
                label="Name"
                required
                autoComplete="off"
                spellcheck={false}
                value={name}
                onInput={(e) => setName(inputValue(e))}
                hint={
                  problem === 'invalid'
                    ? 'Letters, digits and underscores; not starting with a digit.'
                    : problem === 'reserved'
                      ? 'This name is reserved by the platform.'
                      : 'Setting an existing name replaces its value.'
                }
              />
              <div class="field">
                <label for="secret-value">Value</label>
                <textarea
                  id="secret-value"
                  rows={3}
                  autoComplete="off"
                  spellcheck={false}
                  value={value}
                  onInput={(e) => setValue((e.target as HTMLTextAreaElement).value)}
                />
              </div>
              <button type="submit" id="secret-save" disabled={action.busy || !name || problem !== null}>
                Save secret
              </button>
              {action.error ? <ErrorBox error={action.error} /> : null}
            </form>
          </section>
          {removing ? (
            <ConfirmDelete
              title={`Delete ${removing}`}
              confirmLabel="Delete secret"
              path={routePath(secretRoutes.secret, { id: project.id, name: removing })}
              schema={deleteSecretResponseSchema}
              onDeleted={() => {
                setMessage(`${removing} deleted. Running apps keep it until their next release or restart.`);
                state.reload();
              }}
              onClose={() => setRemoving(null)}
            >
              <p>The app loses this variable from its next release or restart.</p>
            </ConfirmDelete>
          ) : null}
        </>
      )}
    </AsyncView>
  );
}

/** /projects/:slug/secrets */
export const ProjectSecretsPage = projectPage('secrets', Secrets);
