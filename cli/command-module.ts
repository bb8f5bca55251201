import type { Command } from 'commander';
import type { CliContext } from './context.js';

/**
 * One `svc` command (with any subcommands). A command file exports one of these and
 * cli/commands/index.ts lists it; that one line is all it takes to add a command.
 */
export interface CommandModule {
  /** Add the command to `program`; its action reads effects and renders through `ctx`. */
  register(program: Command, ctx: CliContext): void;
}
