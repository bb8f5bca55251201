// One organization: members and their roles (change, remove) and invitations by email.
import { useState } from 'preact/hooks';
import {
  createInvitationResponseSchema,
  identityRoutes,
  memberListResponseSchema,
  memberResponseSchema,
  orgListResponseSchema,
  roles,
  routePath,
  type Role,
} from '../../../src/identity/contract.js';
import { api } from '../api/client.js';
import { useSession } from '../api/session.js';
import { AsyncView } from '../components/async-view.js';
import { ConfirmDelete } from '../components/confirm-delete.js';
import { DataTable } from '../components/data-table.js';
import { Field, inputValue } from '../components/form-field.js';
import { useTitle } from '../components/layout.js';
import { SelectField } from '../components/select-field.js';
import { ErrorBox } from '../components/status.js';
import { WorkspaceUsageCard } from '../components/usage-card.js';
import { formatTime } from '../lib/format.js';
import { useApi } from '../lib/use-api.js';
import { useAction } from '../lib/use-action.js';
import { Link } from '../router.js';

/** /orgs/:slug */
export function OrgPage({ slug }: { slug: string }) {
  const session = useSession();
  const orgs = useApi(identityRoutes.orgs, orgListResponseSchema);
  const org = orgs.data?.organizations.find((o) => o.slug === slug || o.id === slug);
  useTitle(org?.name ?? slug);
  const members = useApi(routePath(identityRoutes.orgMembers, { id: slug }), memberListResponseSchema);
  const canAdmin = org?.role === 'owner' || org?.role === 'admin';
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('developer');
  const [invite, setInvite] = useState<{ url: string; email: string } | null>(null);
  const [removing, setRemoving] = useState<{ userId: string; email: string } | null>(null);
  const action = useAction();
  const roleChange = useAction();

  const changeRole = (userId: string, next: Role) =>
    void roleChange.run(async () => {
      await api('PATCH', routePath(identityRoutes.orgMember, { id: slug, userId }), { body: { role: next }, schema: memberResponseSchema });
      members.reload();
    });

  return (
    <>
      <p class="crumbs">
        <Link href="/orgs">Organizations</Link> /
      </p>
      <h1>{org?.name ?? slug}</h1>
      {org ? <p class="muted">Your role: {org.role}</p> : null}
      <section class="card" aria-labelledby="members-title">
        <h2 id="members-title">Members</h2>
        {roleChange.error ? <ErrorBox error={roleChange.error} /> : null}
        <AsyncView state={members}>
          {(d) => (
            <DataTable id="members-table" columns={['Member', 'Role', 'Joined']} actions>
              {d.members.map((m) => (
                <tr key={m.userId}>
                  <td>
                    {m.name ?? m.email} <div class="muted small-text">{m.email}</div>
                  </td>
                  <td>
                    {canAdmin ? (
                      <select
                        aria-label={`Role of ${m.email}`}
                        value={m.role}
                        disabled={roleChange.busy}
                        onChange={(e) => changeRole(m.userId, (e.target as HTMLSelectElement).value as Role)}
                      >
                        {roles.map((r) => (
                          <option key={r} value={r}>
                            {r}
                          </option>
                        ))}
                      </select>
                    ) : (
                      m.role
                    )}
                  </td>
                  <td>{formatTime(m.joinedAt)}</td>
                  <td class="row-actions">
                    {canAdmin && !(session.status === 'signed-in' && session.user.id === m.userId) ? (
                      <button type="button" class="small secondary" onClick={() => setRemoving({ userId: m.userId, email: m.email })}>
                        Remove
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </DataTable>
          )}
        </AsyncView>
      </section>
      <WorkspaceUsageCard org={slug} />
      {canAdmin ? (
        <section class="card" aria-labelledby="invite-title">
          <h2 id="invite-title">Invite someone</h2>
          <form
            class="stack"
            onSubmit={action.submit(async () => {
              const done = await api('POST', routePath(identityRoutes.orgInvitations, { id: slug }), {
                body: { email, role },
                schema: createInvitationResponseSchema,
              });
              // The server's URL opens its registration page; the console's own sign-up takes the same token.
              const token = new URL(done.invitationUrl, window.location.origin).searchParams.get('invitation') ?? done.invitationToken;
              setInvite({ url: `${window.location.origin}/sign-up?invitation=${encodeURIComponent(token)}`, email: done.invitation.email });
              setEmail('');
            })}
          >
            <div class="row-fields">
              <Field id="invite-email" label="Email" type="email" required value={email} onInput={(e) => setEmail(inputValue(e))} />
              <SelectField<Role> id="invite-role" label="Role" value={role} options={roles.map((r) => ({ value: r, label: r }))} onChange={setRole} />
            </div>
            <button type="submit" id="invite-send" disabled={action.busy}>
              Create invitation
            </button>
            {action.error ? <ErrorBox error={action.error} /> : null}
          </form>
          {invite ? (
            <div class="notice" role="status">
              <p>Send this link to {invite.email}. It is shown only now and works once, for 7 days:</p>
              <input id="invitation-url" readOnly value={invite.url} onFocus={(e) => (e.target as HTMLInputElement).select()} />
            </div>
          ) : null}
        </section>
      ) : null}
      {removing ? (
        <ConfirmDelete
          title={`Remove ${removing.email}`}
          confirmLabel="Remove member"
          path={routePath(identityRoutes.orgMember, { id: slug, userId: removing.userId })}
          onDeleted={members.reload}
          onClose={() => setRemoving(null)}
        >
          <p>They lose access to this organization’s projects at once. Their tokens stop working here.</p>
        </ConfirmDelete>
      ) : null}
    </>
  );
}
