// Starting a release on this host: the app under the runner, then its health route. A failed start
// leaves nothing running; restarting the active release keeps the durable pointer true.
import { mkdir } from 'node:fs/promises';
import type { DeployConfig } from '../../src/artifacts/index.js';
import { SvcError } from '../../src/core/errors.js';
import type { AppRunner, RunningApp } from '../app-runner.js';
import { checkHealth } from '../health-check.js';
import type { createProjectFiles, ActivePointer } from './project-files.js';

export interface ReleaseStarterDeps {
  runner: AppRunner;
  files: ReturnType<typeof createProjectFiles>;
  secrets?: (projectId: string) => Promise<Record<string, string>>;
  report(error: unknown, context: string): void;
}

export interface ReleaseStarter {
  /** Start one release and wait for its health route; a failed start leaves nothing running. */
  startRelease(projectId: string, releaseId: string, config: DeployConfig, at: { host?: string; port?: number }, signal?: AbortSignal): Promise<RunningApp>;
  /** Start the pointer's release again at the pointer's address (or a fresh one, moving the pointer). */
  restartActive(projectId: string, pointer: ActivePointer & { releaseId: string }): Promise<RunningApp>;
}

export function createReleaseStarter(deps: ReleaseStarterDeps): ReleaseStarter {
  const { files } = deps;

  async function startRelease(
    projectId: string,
    releaseId: string,
    config: DeployConfig,
    at: { host?: string; port?: number },
    signal?: AbortSignal,
  ): Promise<RunningApp> {
    const dataDir = files.dataDirOf(projectId);
    await mkdir(dataDir, { recursive: true });
    const releaseDir = files.releaseDirOf(projectId, releaseId);
    const app = await deps.runner.start({
      projectId,
      releaseId,
      releaseDir,
      entry: config.entry,
      dataDir,
      databasePath: files.migrationTarget(projectId, releaseDir, config).databasePath,
      env: config.env ?? {},
      secrets: (await deps.secrets?.(projectId)) ?? {},
      ...(at.host ? { host: at.host } : {}),
      ...(at.port ? { port: at.port } : {}),
    });
    const health = await checkHealth({
      host: app.host,
      port: app.port,
      path: config.health.path,
      timeoutMs: config.health.timeoutMs,
      exited: app.wait(),
      ...(signal ? { signal } : {}),
    });
    if (!health.ok) {
      // Read before stopping: the exit the check saw, not the one the stop causes.
      const exit = app.exited;
      await app.stop({ graceMs: 2000 });
      if (health.reason === 'aborted' || signal?.aborted) throw new SvcError('SVC_PROVIDER_ABORTED', 'Aborted while the candidate started');
      const how =
        health.reason === 'exited' && exit ? `exited with ${exit.signal ? `signal ${exit.signal}` : `status ${exit.code ?? 'unknown'}`}` : health.reason;
      throw new SvcError('SVC_HEALTH_CHECK_FAILED', `Health check of ${releaseId} failed (${how}); see the release's logs`);
    }
    return app;
  }

  // The unchanged pointer stays true when the release comes back at its address; if that address was
  // taken meanwhile (another process bound the port while nothing listened), it starts on a fresh port
  // and the pointer moves (same generation) in one atomic write.
  async function restartActive(projectId: string, pointer: ActivePointer & { releaseId: string }): Promise<RunningApp> {
    const config = await files.readDeployConfig(projectId, pointer.releaseId);
    let app: RunningApp;
    try {
      app = await startRelease(projectId, pointer.releaseId, config, {
        ...(pointer.host ? { host: pointer.host } : {}),
        ...(pointer.port ? { port: pointer.port } : {}),
      });
    } catch (error) {
      if (!pointer.port) throw error;
      deps.report(error, `restart of ${pointer.releaseId} at its recorded port`);
      app = await startRelease(projectId, pointer.releaseId, config, pointer.host ? { host: pointer.host } : {});
    }
    if (app.host !== pointer.host || app.port !== pointer.port) files.writePointer(projectId, { ...pointer, host: app.host, port: app.port });
    return app;
  }

  return { startRelease, restartActive };
}
