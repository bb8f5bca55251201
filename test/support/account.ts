// Create an account on a running control plane over plain HTTP (no browser) and get a bearer
// token for it through the real device flow (start → approve with session + CSRF → token).
import { CSRF_HEADER, identityRoutes, SECURE_SESSION_COOKIE, SESSION_COOKIE } from '../../src/identity/contract.js';

/** A registered account with its browser session and an account-wide bearer token. */
export interface TestAccount {
  email: string;
  password: string;
  /** `<session cookie>=<id>` ready for a Cookie header. */
  cookie: string;
  csrfToken: string;
  accessToken: string;
  tokenId: string;
  /** Call the API with the bearer token; throws on non-2xx (message carries the body). */
  api<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  /** Call the API with the browser session (cookie, CSRF header and same Origin). */
  session<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
}

let counter = 0;

async function call<T>(url: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ data: T; response: Response }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} → ${response.status}: ${text}`);
  return { data: (text ? JSON.parse(text) : undefined) as T, response };
}

/** Register (the first account gets the bootstrap slot), sign in and obtain a token via the device flow. */
export async function bootstrapAccount(url: string, options: { email?: string; password?: string; name?: string } = {}): Promise<TestAccount> {
  const email = options.email ?? `owner${++counter}-${process.pid}@example.com`;
  const password = options.password ?? 'correct horse battery staple';
  const registered = await call<{ csrfToken: string }>(
    url,
    'POST',
    identityRoutes.register,
    { origin: url },
    { email, password, name: options.name ?? 'Test Owner' },
  );
  // The platform names its cookie by its public origin (`__Host-` on https), which may differ from `url`.
  const setCookie = registered.response.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`) || c.startsWith(`${SECURE_SESSION_COOKIE}=`));
  if (!setCookie) throw new Error('register did not set the session cookie');
  const cookie = setCookie.split(';')[0] as string;
  const csrfToken = registered.data.csrfToken;
  const sessionHeaders = { cookie, origin: url, [CSRF_HEADER]: csrfToken };
  const session = async <T>(method: string, path: string, body?: unknown): Promise<T> => (await call<T>(url, method, path, sessionHeaders, body)).data;

  const start = await session<{ deviceCode: string; userCode: string; interval: number }>('POST', identityRoutes.deviceStart, { clientName: 'test support' });
  await session('POST', identityRoutes.deviceApprove, { userCode: start.userCode });
  const granted = await pollToken(url, start.deviceCode, start.interval);
  const bearer = { authorization: `Bearer ${granted.accessToken}` };
  return {
    email,
    password,
    cookie,
    csrfToken,
    accessToken: granted.accessToken,
    tokenId: granted.tokenId,
    session,
    api: async <T>(method: string, path: string, body?: unknown): Promise<T> => (await call<T>(url, method, path, bearer, body)).data,
  };
}

// The code is approved already; one poll normally succeeds, slow_down is honoured just in case.
async function pollToken(url: string, deviceCode: string, interval: number): Promise<{ accessToken: string; tokenId: string }> {
  let waitMs = 0;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (waitMs) await new Promise((resolve) => setTimeout(resolve, waitMs));
    const response = await fetch(`${url}${identityRoutes.deviceToken}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ deviceCode }),
    });
    const body = (await response.json()) as { accessToken?: string; tokenId?: string; error?: { code: string } };
    if (response.ok && body.accessToken && body.tokenId) return { accessToken: body.accessToken, tokenId: body.tokenId };
    if (body.error?.code !== 'SVC_DEVICE_SLOW_DOWN' && body.error?.code !== 'SVC_DEVICE_AUTHORIZATION_PENDING')
      throw new Error(`device token: ${JSON.stringify(body)}`);
    waitMs = (interval + 1) * 1000;
  }
  throw new Error('device token was not issued');
}
