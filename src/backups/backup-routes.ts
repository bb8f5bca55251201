// HTTP routes of backups. Permissions: list `read`; take, schedule, delete and download `deploy`
// (a deployer can already run code that reads the database); restore `rollback` (it replaces data).
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { z } from 'zod';
import { SvcError } from '../core/errors.js';
import { bearerOrSession, type HttpApp } from '../core/http/create-http-app.js';
import { actorOf, type Principal } from '../identity/index.js';
import { requireProjectPermission, type ProjectRow } from '../projects/index.js';
import {
  BACKUP_DOWNLOAD_MEDIA_TYPE,
  backupListResponseSchema,
  backupParamsSchema,
  backupResponseSchema,
  backupRoutes as r,
  deleteBackupResponseSchema,
  restoreBackupBodySchema,
  restoreBackupResponseSchema,
  scheduleResponseSchema,
  setScheduleBodySchema,
} from './contract.js';
import type { BackupOperations } from './backup-operations.js';
import { toBackup } from './backup-store.js';
import type { BackupSubject } from './backup-service.js';

const tags = ['backups'];
const security = bearerOrSession;
const projectParams = z.object({ id: z.string().min(1).max(100).describe('project id or slug') });

/** A schedule body out of range is the schedule's own error (with the rule), not a generic validation failure. */
function scheduleBodyError(errors: readonly { instancePath?: string; message?: string }[], dataVar: string): Error {
  const first = errors[0];
  const where = `${dataVar}${(first?.instancePath ?? '').replace(/\//g, '.')}`;
  const message = `${where}: ${first?.message ?? 'invalid'}`;
  if (dataVar !== 'body') return new Error(message);
  return new SvcError('SVC_BACKUP_SCHEDULE_INVALID', `${message}. The interval is 5 to 43200 minutes, keep 1–1000, and the maximum age at least one interval.`);
}

function subjectOf(project: ProjectRow, principal: Principal): BackupSubject {
  return { project: { id: project.id, slug: project.slug, organizationId: project.organization_id }, actor: actorOf(principal) };
}

/** Register the backup routes. */
export function backupRoutes(backups: BackupOperations) {
  const { ctx } = backups.deps;
  return async function register(app: HttpApp): Promise<void> {
    app.get(
      r.backups,
      {
        schema: {
          tags,
          security,
          summary: 'Backups (newest first) and the backup schedule',
          params: projectParams,
          response: { 200: backupListResponseSchema },
        },
      },
      async (request) => {
        const { project } = requireProjectPermission(ctx, request, request.params.id, 'read');
        return backups.list(project.id);
      },
    );

    app.post(
      r.backups,
      {
        schema: {
          tags,
          security,
          summary: 'Take an encrypted backup of the project database now (waits for a running deploy)',
          params: projectParams,
          response: { 201: backupResponseSchema },
        },
      },
      async (request, reply) => {
        const { principal, project } = requireProjectPermission(ctx, request, request.params.id, 'deploy');
        const row = await backups.create(subjectOf(project, principal), 'manual');
        return reply.status(201).send({ backup: toBackup(row) });
      },
    );

    app.delete(
      r.backup,
      { schema: { tags, security, summary: 'Delete a backup', params: backupParamsSchema, response: { 200: deleteBackupResponseSchema } } },
      async (request) => {
        const { principal, project } = requireProjectPermission(ctx, request, request.params.id, 'deploy');
        await backups.delete(subjectOf(project, principal), request.params.backupId);
        return { deleted: true as const, id: request.params.backupId };
      },
    );

    app.get(
      r.download,
      {
        schema: {
          tags,
          security,
          summary: `Download a backup decrypted (${BACKUP_DOWNLOAD_MEDIA_TYPE}); authenticated before any byte is sent`,
          params: backupParamsSchema,
          response: { 200: z.string().describe('SQLite database file') },
        },
      },
      async (request, reply) => {
        const { project } = requireProjectPermission(ctx, request, request.params.id, 'deploy');
        const opened = await backups.download(project.id, request.params.backupId);
        reply.hijack();
        const raw = reply.raw;
        raw.writeHead(200, {
          'content-type': BACKUP_DOWNLOAD_MEDIA_TYPE,
          'content-length': String(opened.bytes),
          'content-disposition': `attachment; filename="${project.slug}-${opened.row.id}.db"`,
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
        });
        const stream = createReadStream(opened.path);
        stream.pipe(raw);
        await new Promise<void>((resolve) => {
          const done = (): void => resolve();
          raw.once('close', done);
          stream.once('error', () => {
            raw.destroy();
            done();
          });
        });
        await rm(opened.path, { force: true });
      },
    );

    app.post(
      r.restore,
      {
        schema: {
          tags,
          security,
          summary: 'Restore a backup into the project database (stops the app, restores, starts it again; needs "restore <slug>")',
          params: backupParamsSchema,
          body: restoreBackupBodySchema,
          response: { 200: restoreBackupResponseSchema },
        },
      },
      async (request) => {
        const { principal, project } = requireProjectPermission(ctx, request, request.params.id, 'rollback');
        const result = await backups.restore(subjectOf(project, principal), request.params.backupId, request.body.confirm);
        return { backup: toBackup(result.row), restartedReleaseId: result.restartedReleaseId };
      },
    );

    app.put(
      r.schedule,
      {
        schema: {
          tags,
          security,
          summary: 'Set the backup schedule (interval, backups kept, maximum age)',
          params: projectParams,
          body: setScheduleBodySchema,
          response: { 200: scheduleResponseSchema },
        },
        schemaErrorFormatter: scheduleBodyError,
      },
      async (request) => {
        const { principal, project } = requireProjectPermission(ctx, request, request.params.id, 'deploy');
        return { schedule: backups.setSchedule(subjectOf(project, principal), request.body) };
      },
    );

    app.delete(
      r.schedule,
      {
        schema: {
          tags,
          security,
          summary: 'Turn scheduled backups off (existing backups are kept)',
          params: projectParams,
          response: { 200: scheduleResponseSchema },
        },
      },
      async (request) => {
        const { principal, project } = requireProjectPermission(ctx, request, request.params.id, 'deploy');
        backups.setSchedule(subjectOf(project, principal), null);
        return { schedule: null };
      },
    );
  };
}
