// The `svc` command: parse (commander) → the command's action → render through Output.
// main() never calls process.exit; it returns the exit code so tests run it in-process.
import { resolve } from 'node:path';
import { Command, CommanderError } from 'commander';
import { exitCodeFor, SvcError } from '../src/core/errors.js';
import type { CommandModule } from './command-module.js';
import { commandNameOf } from './command-name.js';
import { loadCommands } from './commands/index.js';
import { defaultEffects, type CliContext, type CliEffects } from './context.js';
import { Output, ReportedError, toSvcError } from './output.js';
import { packageRoot } from './package-root.js';

/** Run the CLI with `argv` (without node and script); returns the process exit code. */
export async function main(argv: string[], effects: Partial<CliEffects> = {}): Promise<number> {
  const base: CliEffects = { ...defaultEffects(), ...effects };
  const json = wantsJson(argv);
  const ctx: CliContext = { ...base, json, out: new Output({ stdout: base.stdout, stderr: base.stderr, json, clock: base.clock, env: base.env }) };
  // Only the named command's module is loaded (its imports are most of the start-up time).
  const program = buildProgram(ctx, await loadCommands(commandNameOf(argv)));
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return commanderExit(error, ctx);
    if (!(error instanceof ReportedError)) ctx.out.error(error);
    return exitCodeFor(toSvcError(error));
  }
}

/** The commander program with global flags and the given commands. */
function buildProgram(ctx: CliContext, commands: readonly CommandModule[]): Command {
  const program = new Command('svc');
  // Settings first: subcommands copy them from the program when they are created.
  program
    .description('Deploy and operate Node web apps on an svc platform.')
    .version(packageRoot().version, '-v, --version', 'print the svc version')
    .option('--json', 'print machine-readable JSON on stdout (results and errors)')
    .option('--cwd <dir>', 'run as if svc was started in <dir>')
    .exitOverride()
    .configureHelp({ showGlobalOptions: true, sortSubcommands: true })
    .configureOutput({
      writeOut: (text) => ctx.stdout.write(text),
      writeErr: (text) => ctx.stderr.write(text),
      // Parse errors are rendered by main() in the shared error format instead.
      outputError: () => {},
    })
    .hook('preAction', (_program, action) => {
      const options = action.optsWithGlobals<{ cwd?: string }>();
      if (options.cwd) ctx.cwd = resolve(ctx.cwd, options.cwd);
    });
  for (const module of commands) module.register(program, ctx);
  return program;
}

// --json is known before parsing so even usage errors come out as JSON.
function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

function commanderExit(error: CommanderError, ctx: CliContext): number {
  if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
  const usage = new SvcError('SVC_USAGE', error.code === 'commander.help' ? 'No command given.' : error.message.replace(/^error:\s*/, ''));
  // Implicit help (no command) was already printed; other parse errors are rendered here.
  if (error.code !== 'commander.help' || ctx.json) ctx.out.error(usage);
  return exitCodeFor(usage);
}
