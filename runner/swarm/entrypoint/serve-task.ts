// A serving task: fetch and verify the release, extract it into the app tmpfs, link the platform
// package under node_modules/ and make the release read-only (as every driver does), then run the
// app with the task's values and its secrets, but never the endpoint credential.
import { checkEntry } from '../../app-command.js';
import { platformPackageDir } from '../../platform-package-dir.js';
import { prepareReleaseDir } from '../../prepare-release-dir.js';
import type { EndpointClient } from './endpoint-client.js';
import { fetchRelease } from './fetch-release.js';
import { serveApp } from './serve-app.js';
import { appEnvironment } from './task-secrets.js';
import { taskReleaseDir, type TaskSettings } from './task-settings.js';

export interface ServeTaskInput {
  entry: string;
  settings: TaskSettings;
  client: EndpointClient;
  /** The task's environment (the service spec's values). */
  taskEnv: Readonly<Record<string, string | undefined>>;
  /** `env.<NAME>` secrets, name → value. */
  secrets: Readonly<Record<string, string>>;
  say: (line: string) => void;
}

/** Resolve with the status the task exits with: the app's. */
export async function serveTask(input: ServeTaskInput): Promise<number> {
  const entry = checkEntry(input.entry);
  // Refuse a secret that would replace a platform value before anything is fetched.
  const env = appEnvironment(input.taskEnv, input.secrets);
  const releaseDir = taskReleaseDir(input.settings);
  await fetchRelease(input.client, { url: input.settings.artifactUrl, digest: input.settings.releaseDigest, tmpDir: input.settings.tmpDir, releaseDir });
  await prepareReleaseDir({ releaseDir, platformPackageDir: platformPackageDir() });
  input.say(`release ${input.settings.releaseId} (${input.settings.releaseDigest.slice(0, 12)}) extracted; starting ${entry}`);
  return serveApp({ releaseDir, entry, env, drainMs: input.settings.drainMs, say: input.say });
}
