// Where an upload's artifact is decoded before its release directory exists: a fresh directory in
// the project's scratch space. A control plane killed mid-upload leaves one behind; boot recovery
// removes those (under the project lock, so an upload running in another process is never touched).
import { randomBytes } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { projectLayout, type ProjectLayout } from './project-layout.js';

const PREFIX = 'upload-';

/** A new staging directory path for one upload (not created). */
export function uploadStagingDir(layout: ProjectLayout): string {
  return join(layout.tmpDir, `${PREFIX}${randomBytes(6).toString('hex')}`);
}

/** Projects whose scratch space holds staging directories (left by a crash when no upload runs). */
export async function projectsWithUploadStaging(dataDir: string): Promise<string[]> {
  const projects = await readdir(join(dataDir, 'projects')).catch(() => [] as string[]);
  const found: string[] = [];
  for (const projectId of projects) {
    if ((await stagingDirs(projectLayout(dataDir, projectId))).length > 0) found.push(projectId);
  }
  return found;
}

/** Remove every staging directory of a project; call only while holding its lock. */
export async function removeUploadStaging(layout: ProjectLayout): Promise<void> {
  for (const dir of await stagingDirs(layout)) await rm(dir, { recursive: true, force: true });
}

async function stagingDirs(layout: ProjectLayout): Promise<string[]> {
  const names = await readdir(layout.tmpDir).catch(() => [] as string[]);
  return names.filter((name) => name.startsWith(PREFIX)).map((name) => join(layout.tmpDir, name));
}
