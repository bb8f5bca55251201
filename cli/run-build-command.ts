// Runs build.command for `svc deploy` (argv, never a shell). A leading "svc" means this CLI,
// so it is run with the same Node and entry script: no global install needed, works under tsx.
import { delimiter, join } from 'node:path';
import { command, type Command } from '../src/core/command.js';
import { execCommand } from '../src/core/exec.js';
import { SvcError } from '../src/core/errors.js';
import type { SelfCommand } from './context.js';
import type { Output } from './output.js';

/** The Command that runs `argv` in `appDir`: pure, so tests compare the exact argv and env. */
export function resolveBuildCommand(argv: readonly string[], appDir: string, self: SelfCommand, env: Readonly<Record<string, string | undefined>>): Command {
  const [file, ...args] = argv;
  if (!file) throw new SvcError('SVC_VALIDATION', 'build.command is empty');
  const base: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) base[name] = value;
  // The app's own tools (node_modules/.bin) win over global ones, as with npm scripts.
  base.PATH = [join(appDir, 'node_modules', '.bin'), base.PATH].filter(Boolean).join(delimiter);
  if (file === 'svc') return command(self.file, [...self.args, ...args], { cwd: appDir, env: base, replaceEnv: true });
  return command(file, args, { cwd: appDir, env: base, replaceEnv: true });
}

/** Run build.command, streaming its output to stderr in human mode; throws SVC_COMMAND_FAILED on non-zero exit. */
export async function runBuildCommand(
  argv: readonly string[],
  appDir: string,
  options: { self: SelfCommand; env: Readonly<Record<string, string | undefined>>; out: Output },
): Promise<void> {
  const cmd = resolveBuildCommand(argv, appDir, options.self, options.env);
  const result = await execCommand(cmd, { onOutput: (_stream, chunk) => options.out.passthrough(chunk.toString('utf8')) });
  if (result.exitCode === 0) return;
  // Name the configured argv (not the resolved node path). Human mode already streamed the
  // output; JSON callers get its last lines in the message.
  const tail = result.stderr.trim().split('\n').slice(-5).join('\n');
  const status = result.exitCode ?? result.signal;
  const message = `build.command ${JSON.stringify(argv)} exited with ${status}${options.out.json ? (tail ? `:\n${tail}` : '') : ' (its output is above)'}`;
  throw new SvcError('SVC_COMMAND_FAILED', message, { details: { exitCode: result.exitCode, signal: result.signal } });
}
