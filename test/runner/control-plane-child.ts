// Plays a control plane that starts an app, prints its record, and then is killed with SIGKILL.
import { ProcessRunner } from '../../runner/process-runner.js';
import { LogStore } from '../../runner/log-store.js';

const [root, releaseDir] = process.argv.slice(2) as [string, string];
const runner = new ProcessRunner({ runsDir: `${root}/runs`, logs: new LogStore({ dir: `${root}/logs` }), tailPollMs: 20 });
const app = await runner.start({
  projectId: 'p',
  releaseId: 'rel_1',
  releaseDir,
  entry: 'server.mjs',
  dataDir: `${root}/data`,
  databasePath: `${root}/data/app.db`,
  env: {},
  secrets: {},
});
process.stdout.write(`RECORD ${JSON.stringify(app.record())}\n`);
setInterval(() => undefined, 1000);
