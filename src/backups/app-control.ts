// Stop/start of a project's app for restore and site deletion, over the ingress and the supervisor
// (the composition root passes them in; nothing here knows how a process is started).
import type { AppControl } from './backup-service.js';

/** The ingress seam: route a project to nothing while its app is stopped. */
export interface UpstreamSwitch {
  switchUpstream(projectId: string, upstream: null, releaseId: null): Promise<unknown>;
}

/** The supervisor seam. */
export interface AppSupervisor {
  stop(projectId: string): Promise<unknown>;
  start(projectId: string, releaseId: string): Promise<unknown>;
}

/** App control over the ingress and the supervisor: stop = unroute + stop; start = supervised start (routed once healthy). */
export function appControl(routes: UpstreamSwitch, supervisor: AppSupervisor): AppControl {
  return {
    async stop(projectId) {
      await routes.switchUpstream(projectId, null, null).catch(() => undefined);
      await supervisor.stop(projectId);
    },
    async start(projectId, releaseId) {
      await supervisor.start(projectId, releaseId);
    },
  };
}
