/**
 * Every audit event kind, in one place. Features append only these; docs/api.md lists them.
 * A new feature adds its kinds here.
 */
export const auditKinds = {
  'account.register': 'an account was created (bootstrap, public or invitation)',
  'organization.create': 'an organization was created',
  'member.invite': 'an invitation was issued',
  'member.join': 'an invited account joined an organization',
  'member.role': "a member's role changed",
  'member.remove': 'a member was removed',
  'device.approve': 'a device login was approved in the browser',
  'device.deny': 'a device login was denied in the browser',
  'token.create': 'an access token was created (device login or API)',
  'token.revoke': 'an access token was revoked',
  'project.create': 'a project (site) was created',
  'project.delete': 'a project (site) was deleted',
  'release.create': 'a release was uploaded',
  'release.activate': 'a release became active',
  'release.fail': 'a release failed and the previous state was restored',
  'release.delete': 'an inactive release artifact was removed',
  'rollback.start': 'a rollback was requested',
  'rollback.complete': 'a rollback finished',
  'rollback.fail': 'a rollback failed',
  'rollback.restore_data': 'a rollback restored the database from the pre-deploy snapshot (newer writes were lost)',
  'lock.recovered': 'a project lock left by a stopped process was recovered',
  'backup.create': 'a backup was taken',
  'backup.restore': 'a backup was restored',
  'backup.schedule': 'a backup schedule changed',
  'secret.set': 'a secret name was created or its value replaced',
  'secret.delete': 'a secret was deleted',
  'backup.failed': 'a manual or scheduled backup failed (nothing was kept)',
  'backup.overdue': 'a scheduled backup is overdue (no successful backup within the interval)',
  'backup.delete': 'a backup was removed (retention or by request)',
  'domain.add': 'a custom domain was added to a project',
  'domain.remove': 'a custom domain was removed from a project',
  'github.link': 'a project was linked to a GitHub repository branch',
  'github.unlink': 'a project was unlinked from its GitHub repository',
  'github.command': 'a pull-request comment command (/svc ...) was received, with its GitHub actor and outcome',
  'github.rerun': 'a check run was re-requested on GitHub (re-release of that commit)',
  'recovery.enable': 'point-in-time recovery was enabled for a project (takes effect on the next release or restart)',
  'recovery.rotate': 'a release rotated the recovery epoch (old epoch flushed, verified and retained)',
  'recovery.restore_create': 'a point-in-time restore was written into a new stopped database',
  'recovery.restore': 'a restored point-in-time database replaced the project database (a new epoch began)',
  'node.token': 'a runner-node registration token was created (the token itself is never stored)',
  'node.enroll': 'a runner node enrolled with a registration token',
  'node.place': 'a project was placed on a runner node',
  'node.generation': 'a new desired generation (running release or stopped) was requested for a placed project',
} as const;

export type AuditKind = keyof typeof auditKinds;

/** Whether a string is a known audit kind. */
export function isAuditKind(value: string): value is AuditKind {
  return Object.hasOwn(auditKinds, value);
}
