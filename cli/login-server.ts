// Which server `svc login` and `svc register` talk to before any login exists for it.
import type { CliContext } from './context.js';
import { DEFAULT_SERVER, readStoredConfig, validateServerUrl } from './credentials.js';

/** Resolve the server for login: --server, then SVC_SERVER, then the stored login, then the default. */
export async function loginServer(ctx: Pick<CliContext, 'home' | 'env'>, flag: string | undefined): Promise<string> {
  if (flag !== undefined) return validateServerUrl(flag);
  const fromEnv = ctx.env.SVC_SERVER?.trim();
  if (fromEnv) return validateServerUrl(fromEnv);
  const stored = await readStoredConfig(ctx.home);
  return validateServerUrl(stored?.server ?? DEFAULT_SERVER);
}
