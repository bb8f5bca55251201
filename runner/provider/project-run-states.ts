// What runs per project on this host, read from the durable pointers and the apps this provider started.
import { existsSync, readdirSync } from 'node:fs';
import type { RunningApp } from '../app-runner.js';
import type { CanaryCandidates } from './canary-candidates.js';
import type { ActivePointer } from './project-files.js';
import { idSchema, type ProjectRunState } from './provider-contract.js';

/** The project ids with a directory under the provider's root (anything else there is ignored). */
export function projectIdsUnder(rootDir: string): string[] {
  const names = existsSync(rootDir) ? readdirSync(rootDir) : [];
  return names.filter((name) => idSchema.safeParse(name).success);
}

/** Per project: the pointer's generation and release, and the app's address while it is up. */
export function projectRunStates(deps: {
  rootDir: string;
  active(projectId: string): ActivePointer | null;
  apps: ReadonlyMap<string, RunningApp>;
  canaries: CanaryCandidates;
  report(error: unknown, context: string): void;
}): ProjectRunState[] {
  const states: ProjectRunState[] = [];
  for (const projectId of projectIdsUnder(deps.rootDir)) {
    const pointer = deps.active(projectId);
    if (!pointer) continue;
    const app = deps.apps.get(projectId);
    const up = pointer.releaseId !== null && app !== undefined && !app.exited && app.releaseId === pointer.releaseId;
    let canary;
    try {
      canary = deps.canaries.runState(projectId);
    } catch (error) {
      deps.report(error, `reading the canary record of ${projectId}`);
    }
    states.push({
      projectId,
      generation: pointer.generation,
      state: pointer.releaseId ? 'running' : 'stopped',
      releaseId: pointer.releaseId,
      upstream: up ? { host: app.host, port: app.port } : null,
      ...(canary ? { canary } : {}),
    });
  }
  return states;
}
