import type { CommandModule } from '../command-module.js';

/** `svc doctor` (being written). */
export const doctorCommand: CommandModule = {
  register(program) {
    program.command('doctor').description('doctor (coming)');
  },
};
