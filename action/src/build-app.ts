// Run build.command as argv in the app directory (never through a shell). The app's own tools in
// node_modules/.bin come first on PATH, so the default `svc build …` runs the svc the app depends on.
// Credentials the Action holds are removed from the build's environment.
import { delimiter, join } from 'node:path';
import { command, type Command } from '../../src/core/command.js';
import { SvcError } from '../../src/core/errors.js';
import { execCommand } from '../../src/core/exec.js';
import type { ActionEnv } from './workflow-commands.js';

// The build runs the app's code and dependencies: it gets no svc or OIDC credential.
const WITHHELD = [/^INPUT_/, /^ACTIONS_ID_TOKEN_REQUEST_/, /^ACTIONS_RUNTIME_TOKEN$/, /^SVC_TOKEN$/];

/** The Command for build.command: pure, so tests compare argv and environment. */
export function buildCommandFor(argv: readonly string[], appDir: string, env: ActionEnv): Command {
  const [file, ...args] = argv;
  if (!file) throw new SvcError('SVC_VALIDATION', 'build.command is empty');
  const base: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && !WITHHELD.some((re) => re.test(name))) base[name] = value;
  base.PATH = [join(appDir, 'node_modules', '.bin'), base.PATH].filter(Boolean).join(delimiter);
  return command(file, args, { cwd: appDir, env: base, replaceEnv: true });
}

/** Run build.command with its output streamed to the job log; throws SVC_COMMAND_FAILED on a non-zero exit. */
export async function buildApp(argv: readonly string[], appDir: string, env: ActionEnv): Promise<void> {
  const result = await execCommand(buildCommandFor(argv, appDir, env), { inherit: true });
  if (result.exitCode === 0) return;
  throw new SvcError('SVC_COMMAND_FAILED', `build.command ${JSON.stringify(argv)} exited with ${result.exitCode ?? result.signal} (its output is above)`, {
    details: { exitCode: result.exitCode, signal: result.signal },
  });
}
