// Entry of the svc GitHub Action (bundled to action/dist/index.js by scripts/build-action.ts).
import { runAction } from './run-action.js';

process.exitCode = await runAction(process.env, process.cwd());
