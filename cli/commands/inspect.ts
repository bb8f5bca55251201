import type { CommandModule } from '../command-module.js';

/** `svc inspect` (being written). */
export const inspectCommand: CommandModule = {
  register(program) {
    program.command('inspect').description('inspect (coming)');
  },
};
