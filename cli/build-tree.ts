// `svc build <src> <dist>`, the default build.command: a deterministic copy of the source
// tree into dist, transpiling TypeScript with esbuild's transform and copying the rest as is.
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { SvcError } from '../src/core/errors.js';

/** What a build produced. */
export interface BuildSummary {
  src: string;
  dist: string;
  /** Output files, sorted, relative to dist. */
  files: string[];
  transpiled: number;
  bytes: number;
}

interface PlannedFile {
  from: string;
  to: string;
  transpile: boolean;
  executable: boolean;
}

const TRANSPILE: Record<string, string> = { '.ts': '.js', '.mts': '.mjs', '.cts': '.cjs' };
const SKIP_DIRS = new Set(['node_modules']);

/** Output path of a source path: `.ts`→`.js`, `.mts`→`.mjs`, `.cts`→`.cjs`, else unchanged. */
export function outputPathFor(path: string): { path: string; transpile: boolean } {
  if (/\.d\.[mc]?ts$/.test(path)) return { path, transpile: false };
  for (const [from, to] of Object.entries(TRANSPILE)) {
    if (path.endsWith(from)) return { path: path.slice(0, -from.length) + to, transpile: true };
  }
  return { path, transpile: false };
}

/** Whether a name is left out of the build: dotfiles, node_modules and type declarations. */
export function isSkipped(name: string, isDir: boolean): boolean {
  if (name.startsWith('.')) return true;
  if (isDir) return SKIP_DIRS.has(name);
  return /\.d\.[mc]?ts$/.test(name);
}

/** Build `srcDir` into `distDir` (replaced as a whole only after every file is ready). */
export async function buildTree(srcDir: string, distDir: string, options: { onProgress?: (done: number, total: number) => void } = {}): Promise<BuildSummary> {
  const src = resolve(srcDir);
  const dist = resolve(distDir);
  const info = await lstat(src).catch(() => undefined);
  if (!info?.isDirectory()) throw new SvcError('SVC_CLI_BUILD_PATHS', `Source directory ${srcDir} does not exist`);
  if (dist === src || isInside(src, dist)) {
    throw new SvcError('SVC_CLI_BUILD_PATHS', `Output ${distDir} would contain or replace the source ${srcDir}; pick a separate directory`);
  }
  const plan = await planFiles(src, src, dist);
  const temp = join(dirname(dist), `.${relative(dirname(dist), dist)}.svc-build-${randomBytes(4).toString('hex')}`);
  let bytes = 0;
  let transpiled = 0;
  try {
    await mkdir(temp, { recursive: true });
    for (const [index, file] of plan.entries()) {
      const content = file.transpile ? await transpile(file.from, relative(src, file.from)) : await readFile(file.from);
      const target = join(temp, file.to);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, content, { mode: file.executable ? 0o755 : 0o644 });
      bytes += content.length;
      if (file.transpile) transpiled++;
      options.onProgress?.(index + 1, plan.length);
    }
    await rm(dist, { recursive: true, force: true });
    await rename(temp, dist);
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    if (error instanceof SvcError) throw error;
    throw new SvcError('SVC_IO', `Build into ${distDir} failed: ${(error as Error).message}`, { cause: error });
  }
  return { src, dist, files: plan.map((file) => file.to.split(sep).join('/')), transpiled, bytes };
}

function isInside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep) && rel !== '..';
}

// Walk in byte order of names so the output (and thus the artifact) never depends on the filesystem.
async function planFiles(root: string, dir: string, dist: string): Promise<PlannedFile[]> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)));
  const plan: PlannedFile[] = [];
  const seen = new Map<string, string>();
  for (const entry of entries) {
    const full = join(dir, entry.name);
    if (full === dist) continue;
    const stats = await lstat(full);
    if (isSkipped(entry.name, stats.isDirectory())) continue;
    if (stats.isDirectory()) {
      plan.push(...(await planFiles(root, full, dist)));
      continue;
    }
    const rel = relative(root, full);
    if (!stats.isFile()) {
      throw new SvcError(
        'SVC_CLI_BUILD_UNSUPPORTED_FILE',
        `${rel} is a ${stats.isSymbolicLink() ? 'symbolic link' : 'special file'}; svc build copies regular files only`,
      );
    }
    const out = outputPathFor(rel);
    const clash = seen.get(out.path);
    if (clash) throw new SvcError('SVC_CLI_BUILD_PATHS', `${clash} and ${rel} would both produce ${out.path}`);
    seen.set(out.path, rel);
    plan.push({ from: full, to: out.path, transpile: out.transpile, executable: (stats.mode & 0o111) !== 0 });
  }
  // Sort the flattened list by output path so nested directories interleave in byte order too.
  return plan.sort((a, b) => Buffer.compare(Buffer.from(a.to), Buffer.from(b.to)));
}

async function transpile(file: string, rel: string): Promise<Buffer> {
  // esbuild is loaded only when a TypeScript file is present, keeping plain builds fast.
  const { transform } = await import('esbuild');
  const source = await readFile(file, 'utf8');
  try {
    const result = await transform(source, { loader: 'ts', target: 'node20', sourcefile: rel, charset: 'utf8', legalComments: 'inline' });
    return Buffer.from(result.code);
  } catch (error) {
    const first = (error as { errors?: Array<{ text: string; location?: { line: number; column: number } | null }> }).errors?.[0];
    const where = first?.location ? `${rel}:${first.location.line}:${first.location.column + 1}` : rel;
    throw new SvcError('SVC_CLI_BUILD_TRANSFORM', `${where}: ${first?.text ?? (error as Error).message}`, { cause: error });
  }
}
