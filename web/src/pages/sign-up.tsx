// Registration: the first account (bootstrap), public sign-up, or an invitation link (?invitation=).
import { useState } from 'preact/hooks';
import { identityRoutes, registrationStatusSchema, sessionResponseSchema } from '../../../src/identity/contract.js';
import { api } from '../api/client.js';
import { setSession } from '../api/session.js';
import { CredentialFields } from '../components/credential-fields.js';
import { Field, inputValue } from '../components/form-field.js';
import { useTitle } from '../components/layout.js';
import { Loading } from '../components/status.js';
import { useApi } from '../lib/use-api.js';
import { useAction } from '../lib/use-action.js';
import { Link, navigate, useLocation } from '../router.js';
import { afterSignIn, AuthError } from './sign-in.js';

/** /sign-up?invitation=&next= */
export function SignUpPage() {
  const { query } = useLocation();
  const invitation = query.get('invitation');
  const next = afterSignIn(query.get('next'));
  const registration = useApi(invitation ? null : identityRoutes.registration, registrationStatusSchema);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [name, setName] = useState('');
  const action = useAction();
  const title = invitation ? 'Accept invitation' : registration.data?.mode === 'bootstrap' ? 'Create the first account' : 'Create an account';
  useTitle(title);

  if (!invitation && !registration.data && !registration.error) return <Loading />;
  if (!invitation && registration.data && !registration.data.open) {
    return (
      <div class="narrow">
        <h1>Registration closed</h1>
        <p id="registration-closed">
          Self-registration is closed on this platform. Ask an administrator for an invitation, or <Link href="/sign-in">sign in</Link>.
        </p>
      </div>
    );
  }

  const submit = action.submit(async () => {
    const body = { email, password, ...(name.trim() ? { name: name.trim() } : {}), ...(invitation ? { invitation } : {}) };
    const session = await api('POST', invitation ? identityRoutes.invitedRegister : identityRoutes.register, {
      body,
      anonymous: true,
      schema: sessionResponseSchema,
    });
    setSession({ status: 'signed-in', user: session.user, csrfToken: session.csrfToken });
    navigate(next, { replace: true });
  });

  return (
    <div class="narrow">
      <h1>{title}</h1>
      {registration.data?.mode === 'bootstrap' && !invitation ? (
        <p class="muted">The first account owns this platform. Later accounts join by invitation.</p>
      ) : null}
      <form onSubmit={submit} id="register-form" class="stack">
        <CredentialFields email={email} password={password} onEmail={setEmail} onPassword={setPassword} newPassword />
        <Field id="name" label="Name (optional)" autoComplete="name" value={name} onInput={(e) => setName(inputValue(e))} />
        <button id="submit" type="submit" disabled={action.busy}>
          {action.busy ? 'Creating…' : 'Create account'}
        </button>
        <AuthError error={action.error} />
      </form>
      <p>
        Already have an account? <Link href={`/sign-in?next=${encodeURIComponent(next)}`}>Sign in</Link>
      </p>
    </div>
  );
}
