// Stopping and restarting a project's app for work on its data (backup restore, recovery activation,
// project deletion) goes through the release pipeline's own steps, so the ingress route always follows
// the supervised app: other features get this object and never touch the supervisor or the routes.
import { quiesce, restartSupervised, type ReleaseDeps } from './release-deps.js';

/** What backups, recovery and project deletion may do to a project's running app. */
export interface ProjectAppControl {
  /**
   * Take the project out of the ingress (its host answers 503 SVC_INGRESS_NO_ACTIVE_RELEASE), let
   * in-flight requests finish (up to SVC_DRAIN_TIMEOUT_MS), stop the supervised app.
   */
  stop(projectId: string): Promise<void>;
  /**
   * Start a release again under supervision and route the project to it once its health route
   * answers 2xx. Throws SVC_APP_START_FAILED or SVC_HEALTH_CHECK_FAILED otherwise (not routed).
   */
  start(projectId: string, releaseId: string): Promise<void>;
}

/** The releases feature's app control over its dependency bundle. */
export function projectAppControl(deps: ReleaseDeps): ProjectAppControl {
  return {
    stop: (projectId) => quiesce(deps, projectId),
    async start(projectId, releaseId) {
      await restartSupervised(deps, projectId, releaseId);
    },
  };
}
