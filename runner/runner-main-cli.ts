// Source entry for tests and development: `node --import tsx runner/runner-main-cli.ts ...`.
import { main } from './runner-main.js';

process.exitCode = await main(process.argv.slice(2));
