// Deploy a fixture app (fixtures/apps/<name>) to a running platform over its HTTP API: pack it,
// create the project (or use an existing one), upload and wait until the release is active.
import { randomUUID } from 'node:crypto';
import { packFixture } from '../releases/release-support.js';
import type { TestAccount } from './account.js';
import { postRelease } from './post-release.js';

export interface DeployedFixture {
  projectId: string;
  slug: string;
  releaseId: string;
}

export async function deployFixture(url: string, account: TestAccount, options: { app?: string; slug: string; workDir: string }): Promise<DeployedFixture> {
  const { project } = await account.api<{ project: { id: string } }>('POST', '/api/projects', { name: options.slug, slug: options.slug });
  const releaseId = await deployNext(url, account, project.id, options.app ?? 'healthy', options.workDir);
  return { projectId: project.id, slug: options.slug, releaseId };
}

/** Deploy a fixture as the next release of an existing project and wait until it is active; its release id. */
export async function deployNext(url: string, account: TestAccount, projectId: string, app: string, workDir: string): Promise<string> {
  const artifact = await packFixture(app, workDir);
  const res = await postRelease(url, account.accessToken, projectId, artifact, { key: `key-${randomUUID()}`, wait: true });
  const body = (await res.json()) as { release?: { id: string; status: string } };
  if (body.release?.status !== 'active') throw new Error(`deploy of ${app} → ${res.status} ${JSON.stringify(body)}`);
  return body.release.id;
}
