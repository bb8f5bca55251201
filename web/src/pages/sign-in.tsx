// Sign in with email and password; afterwards return to `next` (a same-origin path only).
import { useState } from 'preact/hooks';
import { identityRoutes, registrationStatusSchema, sessionResponseSchema } from '../../../src/identity/contract.js';
import { api, type ApiError } from '../api/client.js';
import { setSession } from '../api/session.js';
import { CredentialFields } from '../components/credential-fields.js';
import { useTitle } from '../components/layout.js';
import { useApi } from '../lib/use-api.js';
import { useAction } from '../lib/use-action.js';
import { isLocalPath, Link, navigate, useLocation } from '../router.js';

/** Where to go after signing in: `next` when it is a local path outside the sign-in pages. Pure. */
export function afterSignIn(next: string | null): string {
  if (!next || !isLocalPath(next) || next.startsWith('/sign-in') || next.startsWith('/sign-up')) return '/';
  return next;
}

/** The error line of the auth forms (#error, as on the server-rendered pages). */
export function AuthError({ error }: { error: Error | undefined }) {
  return (
    <p id="error" role="alert" class="form-error">
      {error ? `${error.message} (${(error as ApiError).code ?? 'error'})` : ''}
    </p>
  );
}

/** /sign-in */
export function SignInPage() {
  useTitle('Sign in');
  const { query } = useLocation();
  const next = afterSignIn(query.get('next'));
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();
  const registration = useApi(identityRoutes.registration, registrationStatusSchema);

  const submit = action.submit(async () => {
    const session = await api('POST', identityRoutes.login, { body: { email, password }, anonymous: true, schema: sessionResponseSchema });
    setSession({ status: 'signed-in', user: session.user, csrfToken: session.csrfToken });
    navigate(next, { replace: true });
  });

  return (
    <div class="narrow">
      <h1>Sign in</h1>
      {query.get('expired') ? (
        <p class="notice" role="status" id="session-expired">
          Your session ended. Sign in again to continue where you were.
        </p>
      ) : null}
      <form onSubmit={submit} id="login-form" class="stack">
        <CredentialFields email={email} password={password} onEmail={setEmail} onPassword={setPassword} />
        <button id="submit" type="submit" disabled={action.busy}>
          {action.busy ? 'Signing in…' : 'Sign in'}
        </button>
        <AuthError error={action.error} />
      </form>
      {registration.data?.open ? (
        <p>
          No account yet?{' '}
          <Link href={`/sign-up?next=${encodeURIComponent(next)}`}>Create {registration.data.mode === 'bootstrap' ? 'the first account' : 'an account'}</Link>
        </p>
      ) : null}
    </div>
  );
}
