// `svc create`: copy the starter template into a new directory, all at once (temp dir + rename).
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { fsyncDirectory } from '../src/core/atomic-write.js';
import { SvcError } from '../src/core/errors.js';
import { packageRoot } from './package-root.js';

/** What `svc create` made. */
export interface CreatedApp {
  name: string;
  path: string;
  files: string[];
}

const NAME = /^[a-z0-9][a-z0-9._-]{0,99}$/;
// Template files whose names npm or git would treat specially are stored without the dot.
const RENAMES: Record<string, string> = { gitignore: '.gitignore' };

/** Where the starter template lives (source tree or installed package). */
export function starterTemplateDir(): string {
  return join(packageRoot().root, 'cli', 'templates', 'starter');
}

/** Check an app name (the target directory's base name): lowercase, npm-safe, no path tricks. */
export function validateAppName(name: string): void {
  if (!NAME.test(name) || name.endsWith('.')) {
    throw new SvcError('SVC_CLI_INVALID_NAME', `"${name}" is not a valid app name (lowercase letters, digits, ".", "_" and "-"; at most 100 characters)`);
  }
}

/** Create `target` from the starter template with `{{name}}` filled in; refuses a non-empty target. */
export async function createApp(target: string, templateDir = starterTemplateDir()): Promise<CreatedApp> {
  const name = basename(target);
  validateAppName(name);
  await assertEmptyOrMissing(target);
  const files = await listFiles(templateDir);
  const parent = dirname(target);
  await mkdir(parent, { recursive: true });
  const temp = join(parent, `.${name}.svc-create-${randomBytes(4).toString('hex')}`);
  const written: string[] = [];
  try {
    for (const file of files) {
      const rel = relative(templateDir, file);
      const out = join(dirname(rel), RENAMES[basename(rel)] ?? basename(rel));
      const text = (await readFile(file, 'utf8')).replaceAll('{{name}}', name);
      await mkdir(join(temp, dirname(out)), { recursive: true });
      await writeFile(join(temp, out), text, { mode: 0o644 });
      written.push(out.split('\\').join('/'));
    }
    if (await isDirectory(target)) {
      // An existing empty directory (possibly someone's cwd) is kept; its entries move in.
      for (const entry of await readdir(temp)) await rename(join(temp, entry), join(target, entry));
      await rmdir(temp);
      await fsyncDirectory(target);
    } else {
      // rename makes the whole app appear at once.
      await rename(temp, target);
      await fsyncDirectory(parent);
    }
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    if (error instanceof SvcError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTEMPTY' || code === 'EEXIST') throw new SvcError('SVC_CLI_TARGET_EXISTS', `${target} already exists`);
    throw new SvcError('SVC_IO', `Could not create ${target}: ${(error as Error).message}`, { cause: error });
  }
  return { name, path: target, files: written.sort() };
}

async function assertEmptyOrMissing(target: string): Promise<void> {
  const info = await stat(target).catch(() => undefined);
  if (!info) return;
  if (!info.isDirectory() || (await readdir(target)).length > 0) {
    throw new SvcError('SVC_CLI_TARGET_EXISTS', `${target} already exists and is not empty`);
  }
}

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() === true;
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(full)));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}
