// The link between an app directory and its project: `.svc/project.json`, written atomically by
// the first `svc deploy` and read by deploy, releases, rollback and logs (like `.vercel/project.json`).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { atomicWriteFile } from '../src/core/atomic-write.js';
import { SvcError } from '../src/core/errors.js';
import { readOptionalFile } from './read-optional-file.js';

/** Path of the link file inside an app directory. */
export const PROJECT_LINK_FILE = join('.svc', 'project.json');

const projectLinkSchema = z.object({
  version: z.literal(1),
  projectId: z.string().min(1).max(100),
  slug: z.string().min(1).max(100),
  name: z.string().max(200),
  organizationId: z.string().min(1).max(100),
  /** Origin of the control plane the project lives on (a hint; the id is what is used). */
  server: z.string().min(1),
  linkedAt: z.string(),
});

/** The contents of `.svc/project.json`. Holds no secrets: safe to commit, though .svc/ is usually ignored. */
export type ProjectLink = z.infer<typeof projectLinkSchema>;

/** Read the link of `appDir`; undefined when there is none, SVC_CLI_PROJECT_LINK_INVALID when it is corrupt. */
export async function readProjectLink(appDir: string): Promise<ProjectLink | undefined> {
  const path = join(appDir, PROJECT_LINK_FILE);
  const text = await readOptionalFile(path);
  if (text === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SvcError('SVC_CLI_PROJECT_LINK_INVALID', `${PROJECT_LINK_FILE} is not valid JSON`);
  }
  const parsed = projectLinkSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SvcError('SVC_CLI_PROJECT_LINK_INVALID', `${PROJECT_LINK_FILE}: ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** Atomically write the link of `appDir` (creating `.svc/`). */
export async function writeProjectLink(appDir: string, link: ProjectLink): Promise<void> {
  await mkdir(join(appDir, '.svc'), { recursive: true });
  await atomicWriteFile(join(appDir, PROJECT_LINK_FILE), `${JSON.stringify(projectLinkSchema.parse(link), null, 2)}\n`);
}

/**
 * The project a command acts on: `--project` when given, otherwise the directory's link.
 * Throws SVC_CLI_PROJECT_NOT_LINKED when neither exists.
 */
export async function resolveProjectRef(
  appDir: string,
  flag: string | undefined,
): Promise<{ id: string; slug: string | undefined; link: ProjectLink | undefined }> {
  if (flag !== undefined && flag.trim() !== '') return { id: flag.trim(), slug: undefined, link: undefined };
  const link = await readProjectLink(appDir);
  if (!link) throw new SvcError('SVC_CLI_PROJECT_NOT_LINKED', `No ${PROJECT_LINK_FILE} in ${appDir} and no --project given`);
  return { id: link.projectId, slug: link.slug, link };
}
