// `svc-runner agent`: credentials (enroll once or read the file), provider (bridge or local fenced),
// heartbeat loop, SVC_RUNNER_CONCURRENCY agent workers with a per-reconcile timeout, and drain on stop:
// a draining heartbeat, no new leases, running reconciles finish (bounded by the timeout), provider closed.
import { SvcError } from '../../src/core/errors.js';
import type { HttpClient } from '../../src/core/http/http-client.js';
import { openLocalNodeProvider } from '../open-local-node-provider.js';
import { createHttpDeploymentProvider } from '../provider/create-http-deployment-provider.js';
import {
  openProviderDeploymentAgent,
  type AgentCoordinator,
  type AgentOperation,
  type ProviderDeploymentAgent,
} from '../provider/open-provider-deployment-agent.js';
import type { DeploymentProvider, ProjectRunState } from '../provider/provider-contract.js';
import type { RunnerNodeSettings } from '../runner-node-settings.js';
import { checkControlUrl, type ControlHttpOptions } from './control-http.js';
import { createCoordinatorClient } from './create-coordinator-client.js';
import { startHeartbeatLoop } from './heartbeat-loop.js';
import { ensureNodeCredentials } from './node-credentials.js';

export interface RunAgentOptions {
  settings: RunnerNodeSettings;
  /** Environment for the local provider's app runner (SVC_RUNNER, SVC_CONTAINER_*). */
  env: Readonly<Record<string, string | undefined>>;
  /** Aborting it drains the node and makes runAgent resolve (SIGINT/SIGTERM in production). */
  stop: AbortSignal;
  log?: (line: string) => void;
  http?: HttpClient;
  /** Wait between lease polls when there is nothing to do (default 1 s). */
  idleMs?: number;
}

/** The provider a node converges with: the bridge when SVC_PROVIDER_URL is set, else the local fenced one. */
export function selectNodeProvider(
  settings: RunnerNodeSettings,
  env: Readonly<Record<string, string | undefined>>,
  onError?: (error: unknown, context: string) => void,
): { provider: DeploymentProvider; recover(): Promise<string[]>; close(): Promise<void> } {
  if (settings.SVC_PROVIDER_URL) {
    if (!settings.SVC_PROVIDER_TOKEN) throw new SvcError('SVC_RUNNER_CONFIG', 'SVC_PROVIDER_TOKEN is required with SVC_PROVIDER_URL');
    const provider = createHttpDeploymentProvider({
      baseUrl: settings.SVC_PROVIDER_URL,
      token: settings.SVC_PROVIDER_TOKEN,
      maxAttempts: settings.SVC_RUNNER_RETRY_ATTEMPTS,
      retryDelayMs: settings.SVC_RUNNER_RETRY_DELAY_MS,
      attemptTimeoutMs: settings.SVC_RUNNER_TIMEOUT_MS,
    });
    // The bridge's provider process runs its own start-up recovery (svc-runner provider).
    return { provider, recover: async () => [], close: async () => undefined };
  }
  const node = openLocalNodeProvider(settings.SVC_RUNNER_DATA_DIR, env, onError);
  return { provider: node.provider, recover: async () => (await node.recover()).unresolved, close: () => node.close() };
}

/** Run the node agent until `stop` aborts, then drain; resolves with the exit code (0). */
export async function runAgent(options: RunAgentOptions): Promise<number> {
  const { settings } = options;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  if (!settings.SVC_CONTROL_URL) throw new SvcError('SVC_RUNNER_CONFIG', 'SVC_CONTROL_URL is required for the agent');
  if (!settings.SVC_RUNNER_NODE_ID) throw new SvcError('SVC_RUNNER_CONFIG', 'SVC_RUNNER_NODE_ID is required for the agent');
  checkControlUrl(settings.SVC_CONTROL_URL);
  const http: ControlHttpOptions = {
    controlUrl: settings.SVC_CONTROL_URL,
    retryAttempts: settings.SVC_RUNNER_RETRY_ATTEMPTS,
    retryDelayMs: settings.SVC_RUNNER_RETRY_DELAY_MS,
    ...(options.http ? { http: options.http } : {}),
  };
  const credentials = await ensureNodeCredentials({
    http,
    credentialsPath: settings.SVC_RUNNER_CREDENTIALS,
    registrationToken: settings.SVC_RUNNER_REGISTRATION_TOKEN,
    enrollment: {
      nodeId: settings.SVC_RUNNER_NODE_ID,
      region: settings.SVC_RUNNER_REGION,
      capacity: settings.SVC_RUNNER_CAPACITY,
      concurrency: settings.SVC_RUNNER_CONCURRENCY,
      labels: settings.SVC_RUNNER_LABELS,
    },
    log,
  });
  const onError = (error: unknown): void =>
    log(`svc-runner agent: ${error instanceof SvcError ? `${error.code}: ` : ''}${(error as Error)?.message ?? String(error)}`);
  const client = createCoordinatorClient({
    ...http,
    credential: credentials.credential,
    maxArtifactBytes: settings.SVC_RUNNER_MAX_ARTIFACT_BYTES,
    onLeaseLost: (id) => log(`svc-runner agent: lease of operation ${id} lost; its reconcile is aborted`),
    onError,
  });
  // Operator telemetry: one line per outcome (ids, fence and codes only; never provider details).
  const coordinator: AgentCoordinator = {
    ...client,
    async observe(operation, result, upstream) {
      const accepted = await client.observe(operation, result, upstream);
      log(
        `svc-runner agent: operation ${operation.id} fence ${operation.fence} generation ${result.generation} ${accepted ? `observed ${result.state}` : 'observation rejected as stale'}`,
      );
      return accepted;
    },
    async fail(operationId, code, operation) {
      log(`svc-runner agent: operation ${operationId}${operation ? ` fence ${operation.fence}` : ''} failed ${code}`);
      await client.fail(operationId, code, operation);
    },
  };
  // The local provider's warnings (apps unsandboxed, sandbox unusable) and errors reach the operator's log.
  const selected = selectNodeProvider(settings, options.env, (error, context) =>
    log(`svc-runner agent: provider ${context}: ${(error as Error)?.message ?? String(error)}`),
  );
  const reporter = nodeReporter(selected.provider, settings.SVC_RUNNER_ADVERTISE_HOST);
  let heartbeat: Awaited<ReturnType<typeof startHeartbeatLoop>>;
  try {
    heartbeat = await startHeartbeatLoop({
      client,
      capacity: settings.SVC_RUNNER_CAPACITY,
      labels: settings.SVC_RUNNER_LABELS,
      report: reporter.report,
      onError,
    });
  } catch (error) {
    await selected.close();
    throw error;
  }
  // Crash safety: before taking work, wait out an earlier controller's lease, verify its runtimes
  // are gone and restart active releases; unresolved projects refuse writers until cleanup is verified.
  try {
    const unresolved = await selected.recover();
    if (unresolved.length > 0) log(`svc-runner agent: unresolved runtime fences for ${unresolved.join(', ')}`);
  } catch (error) {
    heartbeat.stop();
    await selected.close();
    throw error;
  }
  const workers: ProviderDeploymentAgent[] = [];
  for (let i = 0; i < settings.SVC_RUNNER_CONCURRENCY; i++) {
    workers.push(
      openProviderDeploymentAgent({
        coordinator,
        provider: selected.provider,
        artifactLimits: { maxGzipBytes: settings.SVC_RUNNER_MAX_ARTIFACT_BYTES },
        operationTimeoutMs: settings.SVC_RUNNER_TIMEOUT_MS,
        locate: reporter.locate,
        // A failed stop-first cutover restored the previous app: report it now so its held route follows.
        afterFail: () => heartbeat.beat(),
        idleMs: options.idleMs ?? 1000,
        onError,
      }),
    );
  }
  process.stdout.write(`svc-runner agent: node ${credentials.nodeId} ready (${settings.SVC_RUNNER_CONCURRENCY} workers, provider ${selected.provider.kind})\n`);
  if (!options.stop.aborted) await new Promise<void>((resolve) => options.stop.addEventListener('abort', () => resolve(), { once: true }));
  log(`svc-runner agent: draining node ${credentials.nodeId}`);
  await heartbeat.drain();
  await Promise.all(workers.map((worker) => worker.close()));
  heartbeat.stop();
  await selected.close();
  log(`svc-runner agent: node ${credentials.nodeId} drained`);
  return 0;
}

/**
 * What the node tells the control plane about its apps: per project the generation its provider runs
 * and where the app listens, with the host replaced by SVC_RUNNER_ADVERTISE_HOST when set (the port is
 * the app's own). Providers that cannot tell (no `running`) report nothing.
 */
export function nodeReporter(provider: DeploymentProvider, advertiseHost: string | undefined) {
  const advertise = (upstream: ProjectRunState['upstream']): ProjectRunState['upstream'] =>
    upstream && advertiseHost ? { host: advertiseHost, port: upstream.port } : upstream;
  const running = provider.running?.bind(provider);
  return {
    // The fields the control plane's heartbeat accepts, with a staged canary's generation, release and address.
    report: running
      ? async () => ({
          provider: provider.kind,
          projects: (await running()).map((p) => ({
            projectId: p.projectId,
            generation: p.generation,
            state: p.state,
            releaseId: p.releaseId,
            upstream: advertise(p.upstream),
            ...(p.canary ? { canary: { generation: p.canary.generation, releaseId: p.canary.releaseId, upstream: advertise(p.canary.upstream) } } : {}),
          })),
        })
      : undefined,
    locate: running
      ? async (op: AgentOperation) => {
          const state = (await running()).find((p) => p.projectId === op.projectId);
          // A canary's address is its candidate's (the control plane never routes it, its rollout splits to it).
          if (op.canary)
            return state?.canary && state.canary.generation === op.desired.generation && state.canary.releaseId === op.desired.releaseId
              ? advertise(state.canary.upstream)
              : undefined;
          // Only the generation just converged counts; anything else is not this observation's address.
          return state && state.generation === op.desired.generation && state.releaseId === op.desired.releaseId ? advertise(state.upstream) : undefined;
        }
      : undefined,
  };
}

/** An AbortSignal that fires on the first SIGINT or SIGTERM (the listeners are removed then). */
export function stopOnSignals(): AbortSignal {
  const controller = new AbortController();
  const stop = (): void => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    controller.abort();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return controller.signal;
}
