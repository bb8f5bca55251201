// `svc doctor`'s server line: how the configured control plane isolates apps (from its /readyz), so
// a developer sees before deploying that apps there run unsandboxed, or cannot start at all.
import { isSvcError, errorCodes, type ErrorCode } from '../src/core/errors.js';
import type { ErrorCodeDefinition } from '../src/core/error-codes/define.js';
import { isolationSummary, type Isolation } from '../src/releases/contract.js';
import { connect } from './api-client.js';
import type { CliEffects } from './context.js';
import type { CheckResult } from './doctor-checks.js';

/** What doctor learned from the server: its origin, the isolation line, and the raw isolation (for --json). */
export interface ServerIsolation {
  server: string;
  check: CheckResult;
  isolation: Isolation | null;
}

const id = 'isolation';
const title = 'Isolation';

/** Pure: the doctor line for the isolation `server` reported (undefined: the server does not report it). */
export function isolationCheck(server: string, isolation: Isolation | undefined): CheckResult {
  if (!isolation) return { id, title, status: 'skip', message: `${server} does not report app isolation (older svc)` };
  const where = `${isolation.mode} on ${server}`;
  if (!isolation.available) {
    const code = isolation.problem?.code ?? 'SVC_SANDBOX_UNAVAILABLE';
    const hint = Object.hasOwn(errorCodes, code) ? (errorCodes[code as ErrorCode] as ErrorCodeDefinition).hint : undefined;
    return {
      id,
      title,
      status: 'fail',
      message: `${where}: apps cannot start: ${isolation.problem?.message ?? 'the sandbox is unavailable'}`,
      code,
      hint: hint ?? 'See docs/security.md.',
    };
  }
  if (isolation.warning) {
    return {
      id,
      title,
      status: 'warn',
      message: `${where}: ${isolation.warning}`,
      hint: 'On the server: install bubblewrap and slirp4netns (scripts/setup-host.sh) and leave SVC_SANDBOX / SVC_SANDBOX_NETWORK unset, or use SVC_RUNNER=container. See docs/security.md.',
    };
  }
  return { id, title, status: 'pass', message: `${where}: ${isolationSummary(isolation)}` };
}

/**
 * Ask the server named by --server, SVC_SERVER or the stored login; null when none is named (doctor
 * then stays offline). Never throws: an unreachable server is a warning, not a broken app.
 */
export async function checkServerIsolation(effects: Pick<CliEffects, 'home' | 'env' | 'http'>, serverFlag?: string): Promise<ServerIsolation | null> {
  let connection;
  try {
    connection = await connect(effects, { requireToken: false, ...(serverFlag ? { server: serverFlag } : {}) });
  } catch (error) {
    const check: CheckResult = {
      id,
      title,
      status: 'fail',
      message: (error as Error).message,
      hint: 'Fix --server, SVC_SERVER or ~/.svc/config.json (svc login).',
      ...(isSvcError(error) ? { code: error.code } : {}),
    };
    return { server: serverFlag ?? effects.env.SVC_SERVER ?? '', check, isolation: null };
  }
  const { client, credentials } = connection;
  if (credentials.serverSource === 'default') return null;
  try {
    const { body } = await client.readiness();
    return { server: credentials.server, check: isolationCheck(credentials.server, body.isolation), isolation: body.isolation ?? null };
  } catch (error) {
    const check: CheckResult = {
      id,
      title,
      status: 'warn',
      message: `cannot read ${credentials.server}/readyz: ${(error as Error).message}`,
      hint: 'Start the control plane, or point --server / SVC_SERVER at it.',
      ...(isSvcError(error) ? { code: error.code } : {}),
    };
    return { server: credentials.server, check, isolation: null };
  }
}
