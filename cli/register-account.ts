// Create an account from the CLI and leave with a token for it, through the same routes the
// console's sign-up page and `svc login` use: register (which answers with a browser session),
// device start, approve with that session, one poll for the token, then end the session. The token
// is therefore issued, limited and audited exactly as a `svc login` token is.
import { z } from 'zod';
import { SvcError } from '../src/core/errors.js';
import type { HttpClient } from '../src/core/http/http-client.js';
import {
  CSRF_HEADER,
  deviceDecisionResponseSchema,
  identityRoutes,
  registerBodySchema,
  registrationStatusSchema,
  sessionResponseSchema,
  type DeviceTokenResponse,
} from '../src/identity/contract.js';
import { ApiClient } from './api-client.js';
import { errorFromResponse, isOk, networkError } from './http-request.js';

/** What `svc register` sends. */
export interface NewAccount {
  email: string;
  password: string;
  name?: string | undefined;
}

/** The server's registration mode and whether it would take a new account now. */
export type RegistrationStatus = z.infer<typeof registrationStatusSchema>;

/** Check an account's fields as the server will (zod contract), before anything is sent. */
export function checkNewAccount(account: NewAccount): NewAccount {
  const parsed = registerBodySchema.safeParse(account);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SvcError('SVC_VALIDATION', `${issue?.path.join('.') || 'account'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** GET the registration status (no credentials needed). */
export function registrationStatus(server: string, http: HttpClient): Promise<RegistrationStatus> {
  return new ApiClient({ server, http }).request({ method: 'GET', path: identityRoutes.registration, schema: registrationStatusSchema });
}

/** One JSON request carrying the session cookie (and the CSRF token and Origin on state changes). */
async function sessionCall<S extends z.ZodType>(
  http: HttpClient,
  server: string,
  path: string,
  body: unknown,
  schema: S,
  session?: { cookie: string; csrfToken: string; origin: string },
): Promise<{ data: z.output<S>; cookie: string | null }> {
  const url = new URL(path, `${server}/`);
  const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/json', 'user-agent': 'svc-cli' };
  if (session) Object.assign(headers, { cookie: session.cookie, origin: session.origin, [CSRF_HEADER]: session.csrfToken });
  let answer;
  try {
    answer = await http.send({ method: 'POST', url, headers, body: JSON.stringify(body), timeoutMs: 30_000, maxBodyBytes: 1024 * 1024 });
  } catch (error) {
    throw networkError(error, url);
  }
  if (!isOk(answer.status)) throw errorFromResponse(answer.status, answer.text(), answer.header('retry-after'));
  let json: unknown;
  try {
    json = JSON.parse(answer.text() || 'null');
  } catch {
    throw new SvcError('SVC_BAD_RESPONSE', `POST ${url.pathname} returned ${answer.status} with a body that is not JSON`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new SvcError('SVC_BAD_RESPONSE', `POST ${url.pathname}: unexpected response`);
  // The session cookie's `name=value`, without its attributes.
  const cookie = answer.header('set-cookie')?.split(';')[0]?.trim() ?? null;
  return { data: parsed.data, cookie };
}

/**
 * Register `account` on `server` and obtain a token named `clientName` for it. The server refuses
 * with SVC_REGISTRATION_CLOSED unless it takes new accounts (check `registrationStatus` first to say
 * so before asking for a password).
 */
export async function registerAccount(server: string, http: HttpClient, account: NewAccount, clientName: string): Promise<DeviceTokenResponse> {
  const registered = await sessionCall(http, server, identityRoutes.register, checkNewAccount(account), sessionResponseSchema);
  if (!registered.cookie) throw new SvcError('SVC_BAD_RESPONSE', 'The server created the account but set no session cookie; sign in with `svc login`');
  const client = new ApiClient({ server, http, userAgent: 'svc-cli' });
  const start = await client.startDeviceLogin(clientName);
  // The server checks Origin against its own public origin, which is where it sends people to approve.
  const session = { cookie: registered.cookie, csrfToken: registered.data.csrfToken, origin: new URL(start.verificationUri).origin };
  await sessionCall(http, server, identityRoutes.deviceApprove, { userCode: start.userCode }, deviceDecisionResponseSchema, session);
  const granted = await client.pollDeviceToken(start.deviceCode);
  // The browser session was only a step towards the token; end it rather than leave it valid.
  await sessionCall(http, server, identityRoutes.logout, {}, z.unknown(), session).catch(() => undefined);
  return granted;
}
