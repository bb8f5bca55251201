// `svc logout`: revoke the stored token on the server (DELETE /api/tokens/current), then forget
// it locally. A token the server no longer accepts (401) is removed anyway; when the server cannot
// be reached the token is kept so a later `svc logout` can still revoke it.
import type { Command } from 'commander';
import { SvcError } from '../../src/core/errors.js';
import { ApiClient } from '../api-client.js';
import type { CommandModule } from '../command-module.js';
import type { CliContext } from '../context.js';
import { clearStoredToken, configPath, readStoredConfig } from '../credentials.js';

/** What logout did, as printed with --json. */
export interface LogoutResult {
  server: string | null;
  revoked: boolean;
  removedLocally: boolean;
  reason?: string;
}

async function logout(ctx: CliContext): Promise<void> {
  const stored = await readStoredConfig(ctx.home);
  if (!stored?.token) {
    const envNote = ctx.env.SVC_TOKEN?.trim() ? ' (SVC_TOKEN comes from the environment; unset it yourself)' : '';
    ctx.out.result(
      { server: stored?.server ?? null, revoked: false, removedLocally: false, reason: 'not-logged-in' } satisfies LogoutResult,
      () => `Not logged in${envNote}.`,
    );
    return;
  }
  const client = new ApiClient({ server: stored.server, token: stored.token, http: ctx.http, userAgent: 'svc-cli', maxAttempts: 2 });
  let revoked = true;
  let reason: string | undefined;
  try {
    await client.revokeCurrentToken();
  } catch (error) {
    if (!(error instanceof SvcError)) throw error;
    if (!isDeadToken(error)) {
      // Unreachable server or server error: keep the token, it may still be valid.
      throw new SvcError(
        error.code,
        `${error.message}; the token was NOT revoked and is still stored in ${configPath(ctx.home)} — run \`svc logout\` again when the server is reachable`,
        {
          cause: error,
          ...(error.details ? { details: error.details } : {}),
        },
      );
    }
    revoked = false;
    reason = 'token-already-invalid';
  }
  await clearStoredToken(ctx.home);
  ctx.out.result({ server: stored.server, revoked, removedLocally: true, ...(reason ? { reason } : {}) } satisfies LogoutResult, () =>
    revoked
      ? `Logged out of ${stored.server}: token revoked and removed.`
      : `The server no longer accepts the stored token (already revoked or expired); removed it locally.`,
  );
}

/** A 401 means the server does not know the token (revoked, expired or never valid). */
function isDeadToken(error: SvcError): boolean {
  return error.details?.status === 401 || error.status === 401;
}

/** The `svc logout` command. */
export const logoutCommand: CommandModule = {
  register(program: Command, ctx: CliContext): void {
    program
      .command('logout')
      .description('revoke the stored token on the server, then delete it from ~/.svc/config.json')
      .action(() => logout(ctx));
  },
};
