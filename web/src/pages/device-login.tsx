// Review and approve (or deny) a device login started by `svc login`: enter the code from the
// terminal (or arrive with ?code=), check the client name, then decide with the session's CSRF token.
import { useState } from 'preact/hooks';
import { deviceDecisionResponseSchema, deviceInfoResponseSchema, identityRoutes } from '../../../src/identity/contract.js';
import { api } from '../api/client.js';
import { Field, inputValue } from '../components/form-field.js';
import { useTitle } from '../components/layout.js';
import { ErrorBox, Loading, Pill } from '../components/status.js';
import { useApi } from '../lib/use-api.js';
import { useAction } from '../lib/use-action.js';
import { navigate, useLocation } from '../router.js';
import { AuthError } from './sign-in.js';

/** /device-login?code= */
export function DeviceLoginPage() {
  useTitle('Device login');
  const { query } = useLocation();
  const code = query.get('code')?.trim() ?? '';
  const [typed, setTyped] = useState(code);

  const enter = (event: Event) => {
    event.preventDefault();
    if (typed.trim()) navigate(`/device-login?code=${encodeURIComponent(typed.trim())}`);
  };

  return (
    <div class="narrow">
      <h1>Device login</h1>
      <p class="muted">
        Approve a sign-in started in a terminal with <code>svc login</code>.
      </p>
      {code ? <Review key={code} code={code} /> : null}
      <form id="code-form" onSubmit={enter} class="stack">
        <Field
          id="code"
          label="Code shown in your terminal"
          autoComplete="off"
          placeholder="XXXX-XXXX"
          required
          value={typed}
          onInput={(e) => setTyped(inputValue(e))}
        />
        <button id="continue" type="submit" class={code ? 'secondary' : ''}>
          Continue
        </button>
      </form>
    </div>
  );
}

function Review({ code }: { code: string }) {
  const info = useApi(identityRoutes.deviceInfo, deviceInfoResponseSchema, { userCode: code });
  const action = useAction();
  const [result, setResult] = useState('');

  const decide = (decision: 'approve' | 'deny') =>
    void action.run(async () => {
      const done = await api('POST', decision === 'approve' ? identityRoutes.deviceApprove : identityRoutes.deviceDeny, {
        body: { userCode: code },
        schema: deviceDecisionResponseSchema,
      });
      setResult(done.status === 'approved' ? 'Approved. You can return to your terminal.' : 'Denied. No token was issued.');
      info.reload();
    });

  if (info.error) return <ErrorBox error={info.error} />;
  if (!info.data) return <Loading />;
  const d = info.data;
  return (
    <section class="card" aria-labelledby="review-title">
      <h2 id="review-title">Review the request</h2>
      <p class="muted">Code to compare with your terminal</p>
      <p>
        <span id="user-code" class="usercode">
          {d.userCode}
        </span>
      </p>
      <dl class="facts">
        <dt>Client</dt>
        <dd>
          <strong id="client-name">{d.clientName}</strong>
        </dd>
        <dt>Status</dt>
        <dd id="status">
          <Pill tone={d.status === 'pending' ? 'warn' : d.status === 'approved' || d.status === 'consumed' ? 'ok' : 'bad'}>{d.status}</Pill>
        </dd>
      </dl>
      {d.status === 'pending' && !result ? (
        <>
          <p>Only approve if this code matches the one in your terminal.</p>
          <div class="actions start">
            <button id="approve" type="button" disabled={action.busy} onClick={() => decide('approve')}>
              Approve
            </button>
            <button id="deny" type="button" class="danger" disabled={action.busy} onClick={() => decide('deny')}>
              Deny
            </button>
          </div>
        </>
      ) : null}
      <p id="result" role="status">
        {result}
      </p>
      <AuthError error={action.error} />
    </section>
  );
}
