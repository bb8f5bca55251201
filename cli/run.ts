// Source entry for running the CLI without a build: `node --import tsx cli/run.ts <args>`.
// Tests spawn this so they always exercise the current sources; bin/svc.js runs dist/cli/main.js.
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2));
