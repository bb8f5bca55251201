// The entrypoint of every svc swarm task (`/svc/swarm-entrypoint.mjs` imports this file):
//   serve <entry>   fetch the release, run the app, pass its end on;
//   job <jobId>     fetch the job's description, run it, report its result.
// Everything comes from the task environment and the secret files; nothing is written outside the
// app and tmp tmpfs mounts and the project volume.
import { errorCodes, exitCodeFor, isSvcError, SvcError } from '../../../src/core/errors.js';
import { createEndpointClient } from './endpoint-client.js';
import { runTaskJob } from './run-task-job.js';
import { serveTask } from './serve-task.js';
import { readTaskSecrets } from './task-secrets.js';
import { readTaskSettings } from './task-settings.js';

const say = (line: string): void => {
  process.stderr.write(`svc-entrypoint: ${line}\n`);
};

/** The task's exit status for `argv` (the arguments after the script). */
export async function main(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Promise<number> {
  const [command, target, ...rest] = argv;
  if ((command !== 'serve' && command !== 'job') || !target || rest.length > 0) {
    throw new SvcError('SVC_USAGE', 'usage: swarm-entrypoint serve <entry> | job <jobId>');
  }
  const settings = readTaskSettings(env);
  const secrets = await readTaskSecrets(settings.secretsDir);
  const client = createEndpointClient({ credential: secrets.credential, retryWindowMs: settings.retryWindowMs });
  if (command === 'job') return runTaskJob(target, settings, client, say);
  return serveTask({ entry: target, settings, client, taskEnv: env, secrets: secrets.env, say });
}

/** One stderr line a person (and a test) can read: the code first, then what happened and what to do. */
function report(error: unknown): number {
  if (isSvcError(error)) {
    say(`${error.code}: ${error.message} (${errorCodes[error.code].hint})`);
    return exitCodeFor(error) === 0 ? 1 : exitCodeFor(error);
  }
  say(`SVC_INTERNAL: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return 70;
}

main(process.argv.slice(2), process.env).then(
  (status) => process.exit(status),
  (error: unknown) => process.exit(report(error)),
);
