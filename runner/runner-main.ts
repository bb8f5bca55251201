// `svc-runner`: the packaged runner. `provider` serves the provider HTTP bridge backed by the local
// provider; `agent` (runner/agent/run-agent.ts) enrolls the node and converges the projects placed on it.
import { createServer } from 'node:http';
import { SvcError } from '../src/core/errors.js';
import { runnerExitStatus } from '../src/core/exit-status.js';
import { runAgent, stopOnSignals } from './agent/run-agent.js';
import { isLoopbackHost } from './provider/bridge-protocol.js';
import { createDeploymentProviderHandler } from './provider/create-deployment-provider-handler.js';
import { openLocalNodeProvider } from './open-local-node-provider.js';
import { readRunnerNodeSettings, runnerSettingDocs } from './runner-node-settings.js';

/** The `--help` text: commands plus every setting with its default (capacity, labels, concurrency, timeout, retry, artifact limit). */
export function runnerHelp(): string {
  const width = Math.max(...runnerSettingDocs.map((s) => s.name.length));
  return [
    'Usage: svc-runner [command]',
    '',
    'Commands:',
    '  agent                 enroll this node (once, with SVC_RUNNER_REGISTRATION_TOKEN), then lease and converge the',
    '                        projects placed on it through SVC_PROVIDER_URL or the local provider (the default command)',
    '  provider [--listen host:port]',
    '                        serve the provider HTTP bridge (POST /v1/svc/reconcile) with the local provider;',
    '                        loopback only (default 127.0.0.1:7171): put an HTTPS proxy in front for remote use',
    '  --help                show this help',
    '',
    'Environment (default in brackets):',
    ...runnerSettingDocs.map((s) => `  ${s.name.padEnd(width)}  ${s.meaning} [${s.default}]`),
    '',
    'SIGINT and SIGTERM drain the node (running reconciles finish, apps are stopped) before exit.',
  ].join('\n');
}

/** Entry point used by bin/svc-runner.js; resolves with the exit code. */
export async function main(argv: readonly string[], env: Readonly<Record<string, string | undefined>> = process.env): Promise<number> {
  const [commandName = 'agent', ...rest] = argv;
  try {
    if (commandName === '--help' || commandName === '-h' || commandName === 'help') {
      process.stdout.write(`${runnerHelp()}\n`);
      return 0;
    }
    const settings = readRunnerNodeSettings(env);
    if (commandName === 'provider') return await serveProvider(rest, env, settings);
    if (commandName === 'agent') return await runAgent({ settings, env, stop: stopOnSignals() });
    throw new SvcError('SVC_USAGE', `Unknown command ${JSON.stringify(commandName)}; see svc-runner --help`);
  } catch (error) {
    if (error instanceof SvcError) {
      process.stderr.write(`${error.code}: ${error.message}\n`);
      return runnerExitStatus(error);
    }
    process.stderr.write(`svc-runner: ${(error as Error).message}\n`);
    return 1;
  }
}

async function serveProvider(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  settings: ReturnType<typeof readRunnerNodeSettings>,
): Promise<number> {
  const listenAt = args[0] === '--listen' ? args[1] : args.length === 0 ? '127.0.0.1:7171' : undefined;
  const match = listenAt ? /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(listenAt) : null;
  if (!match) throw new SvcError('SVC_USAGE', 'Usage: svc-runner provider [--listen host:port]');
  const host = match[1]!.replace(/^\[|\]$/g, '');
  if (!isLoopbackHost(host)) throw new SvcError('SVC_RUNNER_CONFIG', 'The provider bridge listens on loopback only; terminate HTTPS in front of it');
  if (!settings.SVC_PROVIDER_TOKEN) throw new SvcError('SVC_RUNNER_CONFIG', 'SVC_PROVIDER_TOKEN is required');
  const node = openLocalNodeProvider(settings.SVC_RUNNER_DATA_DIR, env, (error, context) =>
    process.stderr.write(`provider ${context}: ${(error as Error).message ?? String(error)}\n`),
  );
  // Crash safety: before serving, wait out an earlier provider's lease, verify its runtimes are gone
  // and restart active releases; projects whose fence stays unresolved refuse writers (SVC_PROVIDER_FENCE_UNRESOLVED).
  const recovered = await node.recover();
  if (recovered.unresolved.length > 0) process.stderr.write(`provider: unresolved runtime fences for ${recovered.unresolved.join(', ')}\n`);
  const handler = createDeploymentProviderHandler({
    provider: node.provider,
    token: settings.SVC_PROVIDER_TOKEN,
    maxArtifactBytes: settings.SVC_RUNNER_MAX_ARTIFACT_BYTES,
    onError: (error) => process.stderr.write(`provider error: ${(error as Error).message ?? String(error)}\n`),
  });
  const server = createServer({ requestTimeout: settings.SVC_RUNNER_TIMEOUT_MS, headersTimeout: 30_000 }, handler);
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(Number(match[2]), host, ok);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`svc-runner provider listening on http://${host.includes(':') ? `[${host}]` : host}:${port}/v1/svc/reconcile\n`);
  await new Promise<void>((done) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  // Drain: refuse new requests, let running reconciles finish, then stop every app.
  await new Promise<void>((done) => server.close(() => done()));
  await node.close();
  return 0;
}
