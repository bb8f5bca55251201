// Where the ingress process and the control plane meet: files under `<data>/run/`. Pure.
import { join } from 'node:path';

/** Unix socket paths are limited to 107 bytes on Linux (sun_path). */
export const MAX_SOCKET_PATH_BYTES = 107;

export interface EdgePaths {
  /** `<data>/run` (mode 0700). */
  runDir: string;
  /** The control plane's HTTP server (mode 0600); the ingress forwards every request here. */
  controlSocket: string;
  /** The ingress process's command socket (status, stop, handoff). */
  ingressSocket: string;
  /** `{ pid, listen, startedAt }` of the running ingress, written atomically. */
  pidFile: string;
  /** stdout/stderr of the detached ingress process. */
  logFile: string;
  /** The ingress process's route table (routes-file.ts), written atomically on every change. */
  routesFile: string;
}

/** The run files of a data directory. */
export function edgePaths(dataDir: string): EdgePaths {
  const runDir = join(dataDir, 'run');
  return {
    runDir,
    controlSocket: join(runDir, 'control.sock'),
    ingressSocket: join(runDir, 'ingress.sock'),
    pidFile: join(runDir, 'ingress.json'),
    logFile: join(runDir, 'ingress.log'),
    routesFile: join(runDir, 'routes.json'),
  };
}

/** Whether a socket path fits sun_path (otherwise listen fails with an obscure error). */
export function socketPathFits(path: string): boolean {
  return Buffer.byteLength(path) <= MAX_SOCKET_PATH_BYTES;
}
