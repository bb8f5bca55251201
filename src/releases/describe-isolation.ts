// How apps are kept apart on this control plane, as one value for logs, /readyz, the API, `svc doctor`
// and the console. Pure: the SVC_* settings pick the mode (as selectAppRunner does), and the sandbox
// runner's own status says whether sandboxes really work on this host.
import type { ErrorCodeDefinition } from '../core/error-codes/define.js';
import { errorCodes, type ErrorCode } from '../core/errors.js';
import type { SandboxStatus } from '../../runner/release-driver.js';
import { readDriverChoice, readRunnerSettings, readSandboxSettings, readSwarmSettings } from '../../runner/runner-settings.js';
import type { Isolation } from './isolation-contract.js';

/** Said wherever apps run as plain processes: they see the host and each other. */
export const UNSANDBOXED_WARNING = 'apps run WITHOUT isolation (SVC_SANDBOX=off) — only for apps you trust';
/** Said when sandboxed apps share the host network: they can reach each other and host services. */
export const SHARED_NETWORK_WARNING = "apps share the host's network (SVC_SANDBOX_NETWORK=shared) — they can reach each other and services on this host";

function hintOf(code: string): string | undefined {
  return Object.hasOwn(errorCodes, code) ? (errorCodes[code as ErrorCode] as ErrorCodeDefinition).hint : undefined;
}

/**
 * Describe the isolation of the runner `env` selects. Throws SVC_RUNNER_CONFIG / SVC_SANDBOX_CONFIG
 * for invalid settings, as building the runner would. Without `runnerStatus` (runner not built, so
 * nothing probed) a sandbox is described from its settings alone.
 */
export function describeIsolation(env: Readonly<Record<string, string | undefined>>, runnerStatus?: SandboxStatus): Isolation {
  if (readDriverChoice(env) === 'swarm') {
    readSwarmSettings(env);
    // Each project on its own overlay network; its published ports are kept from other projects' tasks
    // by Docker's iptables rules on each node; every task runs as the same non-root container user.
    return { mode: 'swarm', network: 'isolated', perProjectUid: false, available: true, problem: null };
  }
  if (readRunnerSettings(env).kind === 'container') {
    // Every container is on its project's own podman network, all under one non-root container user.
    return { mode: 'container', network: 'isolated', perProjectUid: false, available: true, problem: null };
  }
  const settings = readSandboxSettings(env);
  if (!settings.enabled) return { mode: 'unsandboxed', network: 'shared', perProjectUid: false, available: true, problem: null, warning: UNSANDBOXED_WARNING };
  const status: SandboxStatus = runnerStatus ?? { available: true, network: settings.network, perProjectUid: false, problem: null };
  const isolation: Isolation = {
    mode: 'sandbox',
    network: status.network,
    perProjectUid: status.perProjectUid,
    available: status.available,
    problem: status.problem,
  };
  if (!status.available) {
    const problem = status.problem ?? { code: 'SVC_SANDBOX_UNAVAILABLE', message: errorCodes.SVC_SANDBOX_UNAVAILABLE.summary };
    const hint = hintOf(problem.code);
    return { ...isolation, problem, warning: `apps cannot start: ${problem.message} (${problem.code})${hint ? ` ${hint}` : ''}` };
  }
  return status.network === 'shared' ? { ...isolation, warning: SHARED_NETWORK_WARNING } : isolation;
}
