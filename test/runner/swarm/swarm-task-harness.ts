// The swarm entrypoint as a real child process without Docker: temp directories stand in for
// /run/secrets, /app, /data and /tmp, and the task's environment is what the service spec sets.
// When the tests run as root (CI), the task runs as uid 10001 like a real task, with the mount
// points owned as Docker owns them.
import { spawn } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { removeReleaseDir } from '../../../runner/prepare-release-dir.js';

export const ROOT = join(import.meta.dirname, '..', '..', '..');
const ENTRYPOINT = join(ROOT, 'runner', 'swarm', 'entrypoint', 'main.ts');
/** Set to a compiled main.js (e.g. dist/runner/swarm/entrypoint/main.js) to test the build instead of the sources. */
const COMPILED = process.env.SVC_TEST_SWARM_ENTRYPOINT_JS;
/** The platform package the entrypoint links releases to: the one it runs from (`<pkg>/dist/runner/swarm/entrypoint/main.js`). */
export const PLATFORM_DIR = COMPILED ? dirname(dirname(dirname(dirname(dirname(COMPILED))))) : ROOT;
const asRoot = process.getuid?.() === 0;
export const TASK_UID = asRoot ? 10001 : (process.getuid?.() ?? 0);

export interface TaskDirs {
  root: string;
  secrets: string;
  app: string;
  data: string;
  tmp: string;
}

export async function makeTaskDirs(): Promise<TaskDirs> {
  const root = await mkdtemp(join(tmpdir(), 'svc-swarm-task-'));
  const dirs = { root, secrets: join(root, 'secrets'), app: join(root, 'app'), data: join(root, 'data'), tmp: join(root, 'tmp') };
  for (const dir of [dirs.secrets, dirs.app, dirs.data, dirs.tmp]) await mkdir(dir);
  // tmpfs mounts as the service spec asks for them: root-owned, world-writable, sticky.
  await chmod(dirs.app, 0o1777);
  await chmod(dirs.tmp, 0o1777);
  await chmod(root, 0o755);
  await ownByTask(dirs.data);
  return dirs;
}

/** Hand a path (recursively) to the task's user, as a volume written by earlier tasks would be. */
export async function ownByTask(path: string): Promise<void> {
  if (!asRoot) return;
  await chown(path, TASK_UID, TASK_UID);
  const entries = await readdir(path, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) await ownByTask(join(path, entry.name));
}

/** Secret files as Docker mounts them: mode 0400, owned by the task's user. */
export async function writeSecrets(dirs: TaskDirs, credential: string, env: Record<string, string> = {}): Promise<void> {
  const files: [string, string][] = [['svc.credential', credential], ...Object.entries(env).map(([name, value]): [string, string] => [`env.${name}`, value])];
  for (const [name, value] of files) {
    const path = join(dirs.secrets, name);
    await rm(path, { force: true });
    await writeFile(path, value, { mode: 0o400 });
    if (asRoot) await chown(path, TASK_UID, TASK_UID);
  }
}

export interface TaskEnvInput {
  origin: string;
  releaseId: string;
  digest: string;
  port?: number;
  drainMs?: number;
  extra?: Record<string, string>;
}

/** The environment the service spec gives a task, with the directory overrides of the harness. */
export function taskEnv(dirs: TaskDirs, input: TaskEnvInput): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dirs.data,
    PORT: String(input.port ?? 0),
    HOST: '127.0.0.1',
    NODE_ENV: 'production',
    SVC_PROJECT_ID: 'prj_1',
    SVC_RELEASE_ID: input.releaseId,
    SVC_DATA_DIR: dirs.data,
    SVC_DATABASE_PATH: join(dirs.data, 'app.db'),
    SVC_RELEASE_DIGEST: input.digest,
    SVC_ARTIFACT_URL: `${input.origin}/v1/releases/${input.releaseId}/artifact`,
    SVC_DRAIN_MS: String(input.drainMs ?? 10_000),
    SVC_SWARM_SECRETS_DIR: dirs.secrets,
    SVC_SWARM_APP_DIR: dirs.app,
    SVC_SWARM_DATA_DIR: dirs.data,
    SVC_SWARM_TMP_DIR: dirs.tmp,
    ...input.extra,
  };
}

export interface TaskProcess {
  pid: number;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
  stdout(): string;
  /** SIGKILL the task and everything it started. */
  kill(): void;
}

/** Start the entrypoint (from sources through tsx, as other runner processes are tested, or compiled) with `args`. */
export function startTask(args: string[], env: Record<string, string>): TaskProcess {
  const child = spawn(process.execPath, [...(COMPILED ? [COMPILED] : ['--import', 'tsx', ENTRYPOINT]), ...args], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(asRoot ? { uid: TASK_UID, gid: TASK_UID } : {}),
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  return {
    pid: child.pid!,
    exit,
    stderr: () => stderr,
    stdout: () => stdout,
    kill: () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
    },
  };
}

/** Remove the task's directories (the extracted release is read-only). */
export async function removeTaskDirs(dirs: TaskDirs): Promise<void> {
  await removeReleaseDir(join(dirs.app, 'release')).catch(() => undefined);
  await rm(dirs.root, { recursive: true, force: true });
}
