// `svc doctor`: each check reads the app and returns pass/warn/fail/skip with a fix hint.
// Config and file rules come from src/artifacts (the same code deploy uses), so doctor cannot drift.
import { constants } from 'node:fs';
import { access, lstat, readdir, readFile } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';
import semver from 'semver';
import { packArtifact, readDeployConfig, type DeployConfig } from '../src/artifacts/index.js';
import { isSvcError } from '../src/core/errors.js';

/** Outcome of one check; `fail` makes doctor exit non-zero, `warn` does not. */
export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skip';

/** One line of the doctor report. */
export interface CheckResult {
  id: string;
  title: string;
  status: CheckStatus;
  message: string;
  /** How to fix it (for warn and fail). */
  hint?: string;
  /** The SVC_* code deploy would fail with, when there is one. */
  code?: string;
}

/** Oldest Node.js the CLI and the apps' platform support (package.json engines). */
export const MINIMUM_NODE = '20.19.0';

/** Pure: compare a Node version string such as "v20.20.2" with the minimum (semver; unreadable fails). */
export function checkNodeVersion(version: string, minimum = MINIMUM_NODE): CheckResult {
  const have = semver.coerce(version);
  return have !== null && semver.gte(have, minimum)
    ? { id: 'node', title: 'Node.js', status: 'pass', message: `${version} (needs >= ${minimum})` }
    : { id: 'node', title: 'Node.js', status: 'fail', message: `${version} is older than ${minimum}`, hint: `Install Node.js ${minimum} or newer.` };
}

/** Pure: problems with migration file names (`<number>_<name>.sql`, unique numbers, one width so names sort in order). */
export function migrationNameProblems(names: readonly string[]): { errors: string[]; warnings: string[] } {
  const errors: string[] = [];
  const warnings: string[] = [];
  const versions = new Map<number, string>();
  const widths = new Set<number>();
  for (const name of names) {
    if (!name.endsWith('.sql')) {
      warnings.push(`${name} is not a .sql file and is ignored`);
      continue;
    }
    const match = /^(\d+)_[A-Za-z0-9][A-Za-z0-9_.-]*\.sql$/.exec(name);
    if (!match?.[1]) {
      errors.push(`${name} does not match <number>_<name>.sql`);
      continue;
    }
    const version = Number.parseInt(match[1], 10);
    const clash = versions.get(version);
    if (clash) errors.push(`${clash} and ${name} share version ${version}`);
    versions.set(version, name);
    widths.add(match[1].length);
  }
  if (widths.size > 1) warnings.push('migration numbers have different widths, so name order differs from number order (use e.g. 0001_, 0002_)');
  return { errors, warnings };
}

/** Run every check against `appDir`; never throws for problems in the app (they become failed checks). */
export async function runDoctor(appDir: string, options: { env: Readonly<Record<string, string | undefined>>; nodeVersion?: string }): Promise<CheckResult[]> {
  const results: CheckResult[] = [checkNodeVersion(options.nodeVersion ?? process.version)];
  let config: DeployConfig;
  try {
    config = await readDeployConfig(appDir);
    results.push({ id: 'config', title: 'Config', status: 'pass', message: 'svc.deploy.json is valid' });
  } catch (error) {
    results.push(
      fromError('config', 'Config', error, 'Fix svc.deploy.json (docs/configuration.md lists every field), or run `svc create` for a working example.'),
    );
    for (const [id, title] of [
      ['build', 'Build'],
      ['include', 'Include'],
      ['entry', 'Entry'],
      ['migrations', 'Migrations'],
      ['files', 'Files'],
    ] as const) {
      results.push({ id, title, status: 'skip', message: 'needs a valid svc.deploy.json' });
    }
    return results;
  }
  results.push(await checkBuild(appDir, config, options.env));
  const include = await checkInclude(appDir, config);
  results.push(include);
  const entry = await checkEntry(appDir, config);
  results.push(entry);
  results.push(await checkMigrations(appDir, config));
  results.push(
    include.status === 'pass' && entry.status === 'pass'
      ? await checkFiles(appDir, config)
      : { id: 'files', title: 'Files', status: 'skip', message: 'included paths are not all present yet (build first)' },
  );
  results.push(await checkGitignore(appDir));
  return results;
}

function fromError(id: string, title: string, error: unknown, hint: string): CheckResult {
  if (isSvcError(error)) return { id, title, status: 'fail', message: error.message, hint, code: error.code };
  return { id, title, status: 'fail', message: (error as Error).message, hint };
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

async function checkBuild(appDir: string, config: DeployConfig, env: Readonly<Record<string, string | undefined>>): Promise<CheckResult> {
  const argv = config.build.command;
  const [file, ...args] = argv;
  const title = 'Build';
  if (file === 'svc') {
    if (args[0] === 'build' && args[1] && !(await exists(join(appDir, args[1])))) {
      return {
        id: 'build',
        title,
        status: 'fail',
        message: `build source ${args[1]}/ does not exist`,
        hint: `Create ${args[1]}/ with your server code, or change build.command.`,
      };
    }
    return { id: 'build', title, status: 'pass', message: `${argv.join(' ')} (runs with this svc)` };
  }
  const dirs = file?.includes('/') ? [] : [join(appDir, 'node_modules', '.bin'), ...(env.PATH ?? '').split(delimiter).filter(Boolean)];
  const candidates = file?.includes('/') ? [isAbsolute(file) ? file : join(appDir, file)] : dirs.map((dir) => join(dir, file ?? ''));
  for (const candidate of candidates) {
    if (
      await access(candidate, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return { id: 'build', title, status: 'pass', message: `${argv.join(' ')} (${candidate})` };
  }
  return {
    id: 'build',
    title,
    status: 'fail',
    message: `${file} was not found in node_modules/.bin or PATH`,
    hint: 'Install the tool (npm install) or fix build.command; it runs without a shell.',
    code: 'SVC_COMMAND_NOT_FOUND',
  };
}

async function checkInclude(appDir: string, config: DeployConfig): Promise<CheckResult> {
  const missing: string[] = [];
  for (const path of config.include) if (!(await exists(join(appDir, path)))) missing.push(path);
  if (missing.length === 0) return { id: 'include', title: 'Include', status: 'pass', message: config.include.join(', ') };
  const built = missing.filter((path) => config.build.command.includes(path) || config.entry.startsWith(`${path}/`));
  const status = built.length === missing.length ? 'warn' : 'fail';
  return {
    id: 'include',
    title: 'Include',
    status,
    message: `missing: ${missing.join(', ')}${status === 'warn' ? ' (created by the build)' : ''}`,
    hint:
      status === 'warn'
        ? `Not built yet: run \`${config.build.command.join(' ')}\` (svc deploy runs it for you).`
        : 'Create the missing paths or remove them from include.',
  };
}

async function checkEntry(appDir: string, config: DeployConfig): Promise<CheckResult> {
  const info = await lstat(join(appDir, config.entry)).catch(() => undefined);
  if (info?.isFile()) return { id: 'entry', title: 'Entry', status: 'pass', message: config.entry };
  if (info)
    return {
      id: 'entry',
      title: 'Entry',
      status: 'fail',
      message: `${config.entry} is not a regular file`,
      hint: 'Point entry at the compiled .js/.mjs server file.',
    };
  return {
    id: 'entry',
    title: 'Entry',
    status: 'warn',
    message: `${config.entry} does not exist yet`,
    hint: `Run \`${config.build.command.join(' ')}\` (svc deploy runs it for you); if it still is missing, fix entry.`,
  };
}

async function checkMigrations(appDir: string, config: DeployConfig): Promise<CheckResult> {
  const dir = config.database.migrations;
  const title = 'Migrations';
  const names = await readdir(join(appDir, dir)).catch(() => undefined);
  if (!names) {
    // The default directory may be absent (no migrations); a configured one must exist, as deploy requires.
    if (dir === 'migrations') return { id: 'migrations', title, status: 'pass', message: 'no migrations/ directory (no SQL migrations)' };
    return {
      id: 'migrations',
      title,
      status: 'fail',
      message: `${dir}/ does not exist`,
      hint: `Create ${dir}/ (e.g. with 0001_init.sql), or fix database.migrations.`,
      code: 'SVC_CONFIG_PATH_NOT_FOUND',
    };
  }
  const sorted = [...names].sort();
  const { errors, warnings } = migrationNameProblems(sorted);
  for (const name of sorted.filter((n) => n.endsWith('.sql'))) {
    const text = await readFile(join(appDir, dir, name), 'utf8').catch(() => '');
    if (text.trim() === '') errors.push(`${name} is empty`);
  }
  const count = sorted.filter((n) => n.endsWith('.sql')).length;
  if (errors.length)
    return {
      id: 'migrations',
      title,
      status: 'fail',
      message: errors.join('; '),
      hint: 'Name migrations 0001_name.sql, 0002_name.sql, … with unique numbers; never edit one that has shipped.',
    };
  if (warnings.length) return { id: 'migrations', title, status: 'warn', message: warnings.join('; '), hint: 'Use zero-padded numbers of one width.' };
  return { id: 'migrations', title, status: 'pass', message: `${count} migration${count === 1 ? '' : 's'} in ${dir}/` };
}

async function checkFiles(appDir: string, config: DeployConfig): Promise<CheckResult> {
  try {
    const packed = await packArtifact(appDir, { config });
    return { id: 'files', title: 'Files', status: 'pass', message: `${packed.fileCount} files, ${packed.totalBytes} bytes; no links, secrets or VCS metadata` };
  } catch (error) {
    return fromError(
      'files',
      'Files',
      error,
      'Remove the file from the included paths (credentials belong in `svc secrets`), or replace links with regular files.',
    );
  }
}

async function checkGitignore(appDir: string): Promise<CheckResult> {
  const text = await readFile(join(appDir, '.gitignore'), 'utf8').catch(() => '');
  const lines = text.split('\n').map((line) => line.trim());
  if (lines.some((line) => /^\/?\.svc\/?$/.test(line))) return { id: 'gitignore', title: 'Gitignore', status: 'pass', message: '.svc/ is ignored' };
  return { id: 'gitignore', title: 'Gitignore', status: 'warn', message: '.svc/ (local artifacts) is not in .gitignore', hint: 'Add ".svc/" to .gitignore.' };
}
