// Access tokens: list (never values), create account-wide or project-scoped with chosen
// permissions (the raw value is shown once), revoke.
import { useState } from 'preact/hooks';
import {
  createTokenResponseSchema,
  identityRoutes,
  permissions,
  revokeTokenResponseSchema,
  routePath,
  tokenListResponseSchema,
  type Permission,
  type TokenInfo,
} from '../../../src/identity/contract.js';
import { dashboardResponseSchema, projectRoutes } from '../../../src/projects/contract.js';
import { api } from '../api/client.js';
import { AsyncView } from '../components/async-view.js';
import { ConfirmDelete } from '../components/confirm-delete.js';
import { DataTable } from '../components/data-table.js';
import { Field, inputValue } from '../components/form-field.js';
import { useTitle } from '../components/layout.js';
import { SelectField } from '../components/select-field.js';
import { Empty, ErrorBox, Pill } from '../components/status.js';
import { formatRelative, formatTime } from '../lib/format.js';
import { useApi } from '../lib/use-api.js';
import { useAction } from '../lib/use-action.js';

const DEFAULT_PERMISSIONS: Permission[] = ['read', 'deploy', 'rollback'];

/** /tokens */
export function TokensPage() {
  useTitle('Tokens');
  const state = useApi(identityRoutes.tokens, tokenListResponseSchema);
  const dashboard = useApi(projectRoutes.dashboard, dashboardResponseSchema);
  const projects = (dashboard.data?.organizations ?? []).flatMap((o) => o.projects);
  const [name, setName] = useState('');
  const [projectId, setProjectId] = useState('');
  const [days, setDays] = useState('90');
  const [chosen, setChosen] = useState<Permission[]>(DEFAULT_PERMISSIONS);
  const [created, setCreated] = useState<{ name: string; value: string } | null>(null);
  const [revoking, setRevoking] = useState<TokenInfo | null>(null);
  const action = useAction();

  const toggle = (p: Permission) => setChosen((old) => (old.includes(p) ? old.filter((x) => x !== p) : [...old, p]));

  return (
    <>
      <h1>Access tokens</h1>
      <p class="muted">Tokens authenticate the CLI, CI and scripts. Only a hash is stored; a token’s value is shown once, when it is created.</p>
      <section class="card" aria-labelledby="token-new-title">
        <h2 id="token-new-title">New token</h2>
        <form
          class="stack"
          onSubmit={action.submit(async () => {
            const body = { name: name.trim(), permissions: chosen, expiresInDays: Number(days), ...(projectId ? { projectId } : {}) };
            const done = await api('POST', identityRoutes.tokens, { body, schema: createTokenResponseSchema });
            setCreated({ name: done.token.name, value: done.accessToken });
            setName('');
            state.reload();
          })}
        >
          <div class="row-fields">
            <Field id="token-name" label="Name" required maxLength={100} value={name} onInput={(e) => setName(inputValue(e))} />
            <SelectField
              id="token-project"
              label="Scope"
              value={projectId}
              options={[{ value: '', label: 'Account-wide' }, ...projects.map((p) => ({ value: p.id, label: `Only ${p.slug}` }))]}
              onChange={setProjectId}
            />
            <Field id="token-days" label="Expires in (days)" type="number" min={1} max={365} required value={days} onInput={(e) => setDays(inputValue(e))} />
          </div>
          <fieldset class="perms">
            <legend>Permissions</legend>
            {permissions.map((p) => (
              <label key={p} class="check">
                <input type="checkbox" id={`perm-${p}`} checked={chosen.includes(p)} onChange={() => toggle(p)} /> {p}
              </label>
            ))}
          </fieldset>
          <button type="submit" id="token-create" disabled={action.busy || !name.trim() || chosen.length === 0}>
            Create token
          </button>
          {action.error ? <ErrorBox error={action.error} /> : null}
        </form>
        {created ? (
          <div class="notice" role="status">
            <p>
              Copy the value of <strong>{created.name}</strong> now; it will not be shown again.
            </p>
            <input id="new-token-value" readOnly value={created.value} aria-label="New token value" onFocus={(e) => (e.target as HTMLInputElement).select()} />
          </div>
        ) : null}
      </section>
      <section class="card" aria-labelledby="tokens-title">
        <h2 id="tokens-title">Your tokens</h2>
        <AsyncView state={state}>
          {(d) =>
            d.tokens.length === 0 ? (
              <Empty title="No tokens yet">
                <p class="muted">
                  Run <code>svc login</code> to get one for the CLI, or create one above.
                </p>
              </Empty>
            ) : (
              <DataTable id="tokens-table" columns={['Name', 'Scope', 'Permissions', 'Status', 'Last used']} actions>
                {d.tokens.map((t) => (
                  <tr key={t.id}>
                    <td>{t.name}</td>
                    <td>{t.projectId ? (projects.find((p) => p.id === t.projectId)?.slug ?? t.projectId) : 'account'}</td>
                    <td class="small-text">{t.permissions.join(', ')}</td>
                    <td>
                      <Pill tone={t.status === 'active' ? 'ok' : 'idle'}>{t.status}</Pill>
                      <div class="muted small-text">expires {formatTime(t.expiresAt)}</div>
                    </td>
                    <td>{formatRelative(t.lastUsedAt)}</td>
                    <td class="row-actions">
                      {t.status === 'active' ? (
                        <button type="button" class="small secondary" onClick={() => setRevoking(t)}>
                          Revoke
                        </button>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </DataTable>
            )
          }
        </AsyncView>
      </section>
      {revoking ? (
        <ConfirmDelete
          title={`Revoke ${revoking.name}`}
          confirmLabel="Revoke token"
          path={routePath(identityRoutes.token, { id: revoking.id })}
          schema={revokeTokenResponseSchema}
          onDeleted={state.reload}
          onClose={() => setRevoking(null)}
        >
          <p>Anything using this token (a CLI login, CI) stops working at once.</p>
        </ConfirmDelete>
      ) : null}
    </>
  );
}
