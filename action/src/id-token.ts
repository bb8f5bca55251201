// GitHub Actions OIDC: ask the runner's token service for an ID token with our audience. Needs the
// job to have `permissions: id-token: write` (that is what sets ACTIONS_ID_TOKEN_REQUEST_*).
import { z } from 'zod';
import { SvcError } from '../../src/core/errors.js';
import { httpCall } from './http-call.js';

const replySchema = z.object({ value: z.string().min(1).max(16_384) });

/** The URL of a token request: the runner's URL plus `audience` (it already has a query string). Pure. */
export function idTokenUrl(requestUrl: string, audience: string): string {
  const url = new URL(requestUrl);
  url.searchParams.set('audience', audience);
  return url.toString();
}

/** Request a fresh ID token (each call returns a new token with a new `jti`). */
export async function requestIdToken(request: { url: string; token: string }, audience: string, timeoutMs = 30_000): Promise<string> {
  let reply;
  try {
    reply = await httpCall({
      method: 'GET',
      url: idTokenUrl(request.url, audience),
      headers: { authorization: `Bearer ${request.token}`, accept: 'application/json; api-version=2.0', 'user-agent': 'svc-action' },
      timeoutMs,
    });
  } catch (error) {
    throw new SvcError('SVC_ACTION_OIDC_REQUEST_FAILED', `The OIDC token request failed: ${(error as Error).message}`);
  }
  if (reply.status !== 200) {
    throw new SvcError('SVC_ACTION_OIDC_REQUEST_FAILED', `The OIDC token request answered ${reply.status}: ${reply.text.slice(0, 300)}`, {
      details: { status: reply.status },
    });
  }
  let parsed;
  try {
    parsed = replySchema.safeParse(JSON.parse(reply.text));
  } catch {
    parsed = null;
  }
  if (!parsed?.success) throw new SvcError('SVC_ACTION_OIDC_REQUEST_FAILED', 'The OIDC token response has no "value".');
  return parsed.data.value;
}
