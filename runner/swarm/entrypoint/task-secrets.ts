// The secret files Docker mounts into a task (`svc.credential`, `env.<NAME>`) and the app's
// environment built from them: the task's own values first, then each secret, which may never take
// the place of a platform value. The credential stays with the entrypoint.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SvcError } from '../../../src/core/errors.js';
import { isPassableSecretName } from '../../container/podman-args.js';
import { SWARM_CREDENTIAL_FILE, SWARM_SECRET_FILE_PREFIX } from '../swarm-task-template.js';
import { ENTRYPOINT_ONLY_ENV, ENTRYPOINT_SETTINGS } from './task-settings.js';

export interface TaskSecrets {
  /** The bearer credential for the release endpoint. */
  credential: string;
  /** `env.<NAME>` files, name → value. */
  env: Record<string, string>;
}

const envName = /^[A-Za-z_][A-Za-z0-9_]*$/;
// Docker caps a secret at 500 KiB; anything larger was not put there by swarm.
const MAX_SECRET_BYTES = 512 * 1024;

function misconfigured(message: string): SvcError {
  return new SvcError('SVC_SWARM_TASK_CONFIG', message);
}

/** Read the credential and every `env.<NAME>` file of `dir` (other files are not svc's and are left alone). */
export async function readTaskSecrets(dir: string): Promise<TaskSecrets> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    throw misconfigured(`The secrets directory ${dir} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const read = async (name: string): Promise<string> => {
    const bytes = await readFile(join(dir, name));
    if (bytes.length > MAX_SECRET_BYTES) throw misconfigured(`The secret file ${name} is larger than a swarm secret can be`);
    return bytes.toString('utf8');
  };
  if (!names.includes(SWARM_CREDENTIAL_FILE)) throw misconfigured(`The secret ${SWARM_CREDENTIAL_FILE} is missing`);
  const credential = (await read(SWARM_CREDENTIAL_FILE)).trim();
  if (credential === '') throw misconfigured(`The secret ${SWARM_CREDENTIAL_FILE} is empty`);
  const env: Record<string, string> = {};
  for (const name of names.sort()) {
    if (!name.startsWith(SWARM_SECRET_FILE_PREFIX)) continue;
    env[name.slice(SWARM_SECRET_FILE_PREFIX.length)] = await read(name);
  }
  return { credential, env };
}

/**
 * The app's environment: the task's values (the service spec's platform and public values, minus the
 * entrypoint's test-only path overrides), then the secrets. A platform `SVC_*` value may arrive as a secret
 * (recovery keys) but may not replace one the task already has; any other secret must be a name the
 * platform passes to apps. Refusal is SVC_VALIDATION, as the service spec's own check.
 */
export function appEnvironment(taskEnv: Readonly<Record<string, string | undefined>>, secrets: Readonly<Record<string, string>>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(taskEnv)) {
    if (value !== undefined && !(ENTRYPOINT_ONLY_ENV as readonly string[]).includes(name)) env[name] = value;
  }
  for (const [name, value] of Object.entries(secrets)) {
    if (!envName.test(name)) throw new SvcError('SVC_VALIDATION', `secret file env.${name} does not name an environment variable`);
    const platform = name.startsWith('SVC_');
    if (platform ? taskEnv[name] !== undefined || (ENTRYPOINT_SETTINGS as readonly string[]).includes(name) : !isPassableSecretName(name)) {
      throw new SvcError('SVC_VALIDATION', `secret name ${name} is reserved by the platform`);
    }
    env[name] = value;
  }
  return env;
}
