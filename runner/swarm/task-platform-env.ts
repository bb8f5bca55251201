// The environment the platform sets in every task that runs the entrypoint (a swarm task or a
// Kubernetes pod): where the app listens, who it is, where its data and its release are. App env and
// secrets may never stand in for any of it. Pure.
import { CONTAINER_PATH } from '../container/podman-args.js';
import { SANDBOX_DATA_DIR } from '../sandbox-layout.js';

/** Names the platform sets in every task. */
export const TASK_PLATFORM_ENV_NAMES = [
  'PATH',
  'HOME',
  'PORT',
  'HOST',
  'NODE_ENV',
  'SVC_PROJECT_ID',
  'SVC_RELEASE_ID',
  'SVC_DATA_DIR',
  'SVC_DATABASE_PATH',
  'SVC_RELEASE_DIGEST',
  'SVC_ARTIFACT_URL',
] as const;

export interface TaskPlatformEnvInput {
  projectId: string;
  releaseId: string;
  /** The project database inside the data volume, relative. */
  databaseFile: string;
  releaseDigest: string;
  artifactUrl: string;
  /** The port the app listens on inside the task (0 for jobs). */
  port: number;
}

/** The platform's values, by name. */
export function taskPlatformEnv(input: TaskPlatformEnvInput): Record<(typeof TASK_PLATFORM_ENV_NAMES)[number], string> {
  return {
    PATH: CONTAINER_PATH,
    HOME: SANDBOX_DATA_DIR,
    PORT: String(input.port),
    HOST: '0.0.0.0',
    NODE_ENV: 'production',
    SVC_PROJECT_ID: input.projectId,
    SVC_RELEASE_ID: input.releaseId,
    SVC_DATA_DIR: SANDBOX_DATA_DIR,
    SVC_DATABASE_PATH: `${SANDBOX_DATA_DIR}/${input.databaseFile}`,
    SVC_RELEASE_DIGEST: input.releaseDigest,
    SVC_ARTIFACT_URL: input.artifactUrl,
  };
}
