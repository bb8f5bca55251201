// The end of every way in (`svc login`, `svc register`): store the token for its server in
// ~/.svc/config.json and say where it went.
import type { DeviceTokenResponse } from '../src/identity/contract.js';
import type { CliContext } from './context.js';
import { configPath, writeStoredConfig } from './credentials.js';

/** Store `granted` as the login for `server` and print the result; `headline` is its first line. */
export async function saveLogin(ctx: CliContext, server: string, granted: DeviceTokenResponse, headline: string): Promise<void> {
  await writeStoredConfig(ctx.home, {
    version: 1,
    server,
    token: granted.accessToken,
    tokenId: granted.tokenId,
    account: granted.user.email,
    savedAt: new Date(ctx.clock.now()).toISOString(),
  });
  const path = configPath(ctx.home);
  if (ctx.env.SVC_TOKEN?.trim() && !ctx.json) ctx.stderr.write('note: SVC_TOKEN is set and overrides the stored login while it stays set\n');
  ctx.out.result({ server, user: granted.user, tokenId: granted.tokenId, expiresAt: granted.expiresAt, configPath: path }, () => [
    headline,
    `Token ${granted.tokenId} (expires ${granted.expiresAt}) stored in ${path}.`,
  ]);
}
