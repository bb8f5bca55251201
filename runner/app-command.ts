// Pure construction of the command that starts an app: argv and a clean environment, as data.
import { isAbsolute, normalize } from 'node:path';
import { command, type Command } from '../src/core/command.js';
import { SvcError } from '../src/core/errors.js';
import type { AppStartSpec } from './app-runner.js';

/** Names an app's public `env` may not set: the platform owns them. */
export function isReservedEnvName(name: string): boolean {
  return name === 'PORT' || name === 'HOST' || name === 'NODE_OPTIONS' || name.startsWith('SVC_');
}

/** Platform-controlled names a secret may not take, plus everything reserved for env. */
export function isReservedSecretName(name: string): boolean {
  return isReservedEnvName(name) || ['PATH', 'HOME', 'NODE_ENV', 'TRUST_PROXY'].includes(name);
}

/** Variables copied from the platform's own environment into every app (nothing secret, nothing SVC_*). */
export const inheritedEnvNames = ['PATH', 'LANG', 'LC_ALL', 'TZ'] as const;

export interface AppCommandContext {
  /** The node binary (default: the one running the control plane). */
  nodePath: string;
  port: number;
  host: string;
  /** The platform's environment, from which only `inheritedEnvNames` are taken. */
  baseEnv: Readonly<Record<string, string | undefined>>;
}

const envName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Check that `entry` is a relative .js/.mjs path that stays inside the release directory. */
export function checkEntry(entry: string): string {
  const normal = normalize(entry);
  if (isAbsolute(entry) || normal.startsWith('..') || normal.startsWith('-') || !/\.(m?js)$/.test(normal) || entry.includes('\0')) {
    throw new SvcError('SVC_VALIDATION', `entry must be a relative .js or .mjs file inside the release: ${JSON.stringify(entry)}`);
  }
  return normal;
}

/** Where the app finds its files, as the app sees them (host paths, or sandbox paths inside a sandbox). */
export interface AppPaths {
  dataDir: string;
  databasePath: string;
  /** The platform's `SVC_*` values, with any paths already as the app sees them. */
  platformEnv: Readonly<Record<string, string>>;
}

/**
 * The app's whole environment: a few inherited variables, the app's public env, its secrets, then the
 * platform's PORT/HOST/SVC_* values (which always win). Names are validated; values are never logged.
 */
export function appEnvironment(spec: AppStartSpec, paths: AppPaths, ctx: Omit<AppCommandContext, 'nodePath'>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of inheritedEnvNames) {
    const value = ctx.baseEnv[name];
    if (value !== undefined) env[name] = value;
  }
  env.HOME = paths.dataDir;
  for (const [name, value] of Object.entries(spec.env)) {
    if (!envName.test(name) || isReservedEnvName(name)) throw new SvcError('SVC_VALIDATION', `env name ${name} is invalid or reserved`);
    env[name] = value;
  }
  for (const [name, value] of Object.entries(spec.secrets)) {
    if (!envName.test(name) || isReservedSecretName(name)) throw new SvcError('SVC_VALIDATION', `secret name ${name} is invalid or reserved`);
    env[name] = value;
  }
  for (const [name, value] of Object.entries(paths.platformEnv)) {
    if (!name.startsWith('SVC_') || !envName.test(name)) throw new SvcError('SVC_VALIDATION', `platform env name ${name} must start with SVC_`);
    env[name] = value;
  }
  Object.assign(env, {
    PORT: String(ctx.port),
    HOST: ctx.host,
    NODE_ENV: 'production',
    SVC_PROJECT_ID: spec.projectId,
    SVC_RELEASE_ID: spec.releaseId,
    SVC_DATA_DIR: paths.dataDir,
    SVC_DATABASE_PATH: paths.databasePath,
  });
  return env;
}

/**
 * `node <entry>` run in the release directory with a clean environment (see appEnvironment), unsandboxed.
 * Secrets are only ever in `env`, never in `args`.
 */
export function buildAppCommand(spec: AppStartSpec, ctx: AppCommandContext): Command {
  const entry = checkEntry(spec.entry);
  const env = appEnvironment(spec, { dataDir: spec.dataDir, databasePath: spec.databasePath, platformEnv: spec.platformEnv ?? {} }, ctx);
  return command(ctx.nodePath, [entry], { cwd: spec.releaseDir, env, replaceEnv: true });
}
