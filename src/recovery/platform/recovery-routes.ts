// HTTP routes of platform recovery. Permissions: status `read`; enable `deploy` (applies on the next
// release or supervised restart); restore into a new database and activate it `rollback` (replaces data).
import { z } from 'zod';
import { SvcError } from '../../core/errors.js';
import { bearerOrSession, type HttpApp } from '../../core/http/create-http-app.js';
import { actorOf, type Principal } from '../../identity/index.js';
import { requireProjectPermission, type ProjectRow } from '../../projects/index.js';
import {
  activateRestoreBodySchema,
  activateRestoreParamsSchema,
  activateRestoreResponseSchema,
  enableRecoveryBodySchema,
  enableRecoveryResponseSchema,
  recoveryRoutes as r,
  recoveryStatusSchema,
  restoreRecoveryBodySchema,
  restoreRecoveryResponseSchema,
} from '../contract.js';
import { activateRestore, type ActivationDeps } from './activate-restore.js';
import { enableRecovery, recoveryStatus, restoreIntoNewDatabase, type RecoverySubject } from './project-recovery.js';
import { toRecoveryRestore } from './recovery-store.js';

const tags = ['recovery'];
const security = bearerOrSession;
const projectParams = z.object({ id: z.string().min(1).max(100).describe('project id or slug') });

function subjectOf(project: ProjectRow, principal: Principal): RecoverySubject {
  return { project: { id: project.id, slug: project.slug, organizationId: project.organization_id }, actor: actorOf(principal) };
}

/** Register the recovery routes. */
export function recoveryRoutes(deps: ActivationDeps) {
  const { ctx } = deps;
  return async function register(app: HttpApp): Promise<void> {
    app.get(
      r.recovery,
      {
        schema: {
          tags,
          security,
          summary: 'Point-in-time recovery status: epochs, committed and exported sequences, restores',
          params: projectParams,
          response: { 200: recoveryStatusSchema },
        },
      },
      async (request) => {
        const { project } = requireProjectPermission(ctx, request, request.params.id, 'read');
        return recoveryStatus(deps, project.id);
      },
    );

    app.post(
      r.recovery,
      {
        schema: {
          tags,
          security,
          summary: 'Enable point-in-time recovery (takes effect on the next release or supervised restart)',
          params: projectParams,
          body: enableRecoveryBodySchema,
          response: { 200: enableRecoveryResponseSchema, 201: enableRecoveryResponseSchema },
        },
      },
      async (request, reply) => {
        const { principal, project } = requireProjectPermission(ctx, request, request.params.id, 'deploy');
        if (!request.body.enabled) throw new SvcError('SVC_RECOVERY_DISABLE_UNSUPPORTED', 'Turning recovery off is not supported in this version.');
        const { created } = enableRecovery(deps, subjectOf(project, principal));
        return reply.status(created ? 201 : 200).send({ enabled: true as const, created, effective: 'next-release-or-restart' as const });
      },
    );

    app.post(
      r.restore,
      {
        schema: {
          tags,
          security,
          summary: 'Restore to a sequence or time into a new stopped database file (the live database is untouched)',
          params: projectParams,
          body: restoreRecoveryBodySchema,
          response: { 201: restoreRecoveryResponseSchema },
        },
      },
      async (request, reply) => {
        const { principal, project } = requireProjectPermission(ctx, request, request.params.id, 'rollback');
        const row = await restoreIntoNewDatabase(deps, subjectOf(project, principal), request.body);
        return reply.status(201).send({ restore: toRecoveryRestore(row) });
      },
    );

    app.post(
      r.activate,
      {
        schema: {
          tags,
          security,
          summary: 'Make a restored database the project database (stop, keep an undo snapshot, swap, restart; a new epoch begins)',
          params: activateRestoreParamsSchema,
          body: activateRestoreBodySchema,
          response: { 200: activateRestoreResponseSchema },
        },
      },
      async (request) => {
        const { principal, project } = requireProjectPermission(ctx, request, request.params.id, 'rollback');
        const result = await activateRestore(deps, subjectOf(project, principal), request.params.restoreId, request.body.confirm);
        return { restore: toRecoveryRestore(result.row), restartedReleaseId: result.restartedReleaseId, undoSnapshot: result.undoSnapshot };
      },
    );
  };
}
