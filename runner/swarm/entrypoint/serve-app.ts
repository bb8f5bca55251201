// Run the app as the task's one child and pass its end on: the task exits with the app's status.
// A stop (SIGTERM from swarm) first leaves the app serving for a lame-duck window while the control
// plane moves the ingress to the new task, then asks the app to stop; other signals pass at once.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { join } from 'node:path';

export interface ServeAppInput {
  releaseDir: string;
  /** Checked relative `.js`/`.mjs` path inside the release. */
  entry: string;
  env: Record<string, string>;
  drainMs: number;
  /** Where the entrypoint says what it does (stderr; the app's own output is inherited). */
  say: (line: string) => void;
}

const forwarded = ['SIGINT', 'SIGQUIT', 'SIGHUP'] as const;

/** The exit status of a process that ended with `code` or by `signal` (128 + n, as a shell reports it). */
export function exitStatus(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  return 128 + (signal ? (constants.signals[signal] ?? 0) : 0);
}

/** Start `node <entry>` in the release and resolve with the status the task should exit with. */
export function serveApp(input: ServeAppInput): Promise<number> {
  const child = spawn(process.execPath, [join(input.releaseDir, input.entry)], { cwd: input.releaseDir, env: input.env, stdio: 'inherit' });
  let lameDuck: NodeJS.Timeout | undefined;
  const send = (signal: NodeJS.Signals): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  const onTerm = (): void => {
    if (lameDuck) {
      // A second stop request: no more waiting.
      clearTimeout(lameDuck);
      send('SIGTERM');
      return;
    }
    input.say(`stop requested: the app keeps serving for ${input.drainMs} ms, then gets SIGTERM`);
    lameDuck = setTimeout(() => send('SIGTERM'), input.drainMs);
  };
  const passOn = forwarded.map((signal) => [signal, () => send(signal)] as const);
  process.on('SIGTERM', onTerm);
  for (const [signal, handler] of passOn) process.on(signal, handler);
  return new Promise((resolve) => {
    const finish = (status: number): void => {
      clearTimeout(lameDuck);
      process.off('SIGTERM', onTerm);
      for (const [signal, handler] of passOn) process.off(signal, handler);
      resolve(status);
    };
    child.once('error', (error) => {
      input.say(`the app could not start: ${error.message}`);
      finish(127);
    });
    child.once('exit', (code, signal) => finish(exitStatus(code, signal)));
  });
}
