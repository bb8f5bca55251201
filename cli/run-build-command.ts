// Runs build.command for `svc deploy` (argv, never a shell). A leading "svc" means this CLI,
// so it is run with the same Node and entry script: no global install needed, works under tsx.
// The default build.command, exactly `svc build <src> <dist>`, runs in this process instead: a
// second Node start and CLI load cost more than the copy itself for a small app.
import { delimiter, join, resolve } from 'node:path';
import { command, type Command } from '../src/core/command.js';
import { execCommand } from '../src/core/exec.js';
import { exitCodeFor, SvcError } from '../src/core/errors.js';
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

/** The directories of a build.command that is exactly `svc build <src> <dist>` (no flags), else null. Pure. */
export function inProcessBuild(argv: readonly string[]): { src: string; dist: string } | null {
  if (argv.length !== 4 || argv[0] !== 'svc' || argv[1] !== 'build') return null;
  const [, , src, dist] = argv as [string, string, string, string];
  return src.startsWith('-') || dist.startsWith('-') ? null : { src, dist };
}

/** Run build.command, streaming its output to stderr in human mode; throws SVC_COMMAND_FAILED on non-zero exit. */
export async function runBuildCommand(
  argv: readonly string[],
  appDir: string,
  options: { self: SelfCommand; env: Readonly<Record<string, string | undefined>>; out: Output },
): Promise<void> {
  const own = inProcessBuild(argv);
  if (own) return buildInProcess(argv, appDir, own, options.out);
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

// `svc build` in this process: the same copy and the same line a child `svc build` prints; a failure is
// still SVC_COMMAND_FAILED naming build.command, with the build's own error as its cause.
async function buildInProcess(argv: readonly string[], appDir: string, dirs: { src: string; dist: string }, out: Output): Promise<void> {
  const { buildTree } = await import('./build-tree.js');
  const { builtLine } = await import('./commands/build.js');
  let summary;
  try {
    summary = await buildTree(resolve(appDir, dirs.src), resolve(appDir, dirs.dist));
  } catch (error) {
    const exitCode = exitCodeFor(error instanceof SvcError ? error : new SvcError('SVC_INTERNAL', String(error)));
    const code = error instanceof SvcError ? `${error.code}: ` : '';
    throw new SvcError('SVC_COMMAND_FAILED', `build.command ${JSON.stringify(argv)} failed: ${code}${(error as Error).message}`, {
      cause: error,
      details: { exitCode, signal: null },
    });
  }
  out.passthrough(`${builtLine(summary, appDir, (color) => out.paint(color))}\n`);
}
