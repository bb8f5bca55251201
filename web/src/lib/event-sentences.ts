// Audit events as sentences people read ("Ana rolled back to release rel_12, data restored"), with
// links to the page of what they name. Pure and DOM-free: the feed renders the parts, tests read the text.
// Words follow the one vocabulary of console, CLI and docs: project, release, rollback, domain, backup.
import type { AuditEvent, AuditKind } from '../../../src/audit/contract.js';
import { formatBytes } from '../../../src/core/format-bytes.js';
import { shortId } from './format.js';

/** Plain text, a link, or an identifier shown as code. */
export type SentencePart = string | { text: string; href: string } | { code: string; href?: string };

/** Where links point: the console path of a project (`/projects/<slug>`), or null when it is gone or unknown. */
export interface SentenceContext {
  projectPath(projectId: string): string | null;
}

interface Subject {
  actor: string;
  meta: Record<string, unknown>;
  /** Console path of a project page (`tab` '' is its overview), when the project is known. */
  page(tab: string): string | undefined;
}

const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

function capitalized(parts: SentencePart[]): SentencePart[] {
  const [first, ...rest] = parts;
  return typeof first === 'string' ? [first.charAt(0).toUpperCase() + first.slice(1), ...rest] : parts;
}

/** "release <id>" linked to the releases page, or "a release" when the id is missing. */
function release(s: Subject, key = 'releaseId'): SentencePart[] {
  const id = str(s.meta[key]);
  if (!id) return ['a release'];
  const href = s.page('/releases');
  return ['release ', href ? { code: shortId(id), href } : { code: shortId(id) }];
}

function linked(s: Subject, text: string, tab: string): SentencePart {
  const href = s.page(tab);
  return href ? { text, href } : text;
}

function quoted(value: unknown): string {
  return `“${str(value) ?? 'unnamed'}”`;
}

function minutes(value: unknown): string {
  const n = num(value);
  return n === null ? 'on a schedule' : n === 1 ? 'every minute' : `every ${n} minutes`;
}

/** One rule per audit kind the server emits (src/audit/kinds.ts); the compiler requires them all. */
const rules: Record<AuditKind, (s: Subject) => SentencePart[]> = {
  'account.register': (s) => [s.actor, s.meta.mode === 'invitation' ? ' created an account from an invitation' : ' created an account'],
  'organization.create': (s) => [s.actor, ' created the organization ', { code: str(s.meta.slug) ?? str(s.meta.name) ?? 'unnamed' }],
  'member.invite': (s) => [s.actor, ` invited ${str(s.meta.email) ?? 'someone'} as ${str(s.meta.role) ?? 'a member'}`],
  'member.join': (s) => [s.actor, ` joined as ${str(s.meta.role) ?? 'a member'}`],
  'member.role': (s) => [s.actor, ` changed a member’s role from ${str(s.meta.from) ?? '?'} to ${str(s.meta.to) ?? '?'}`],
  'member.remove': (s) => [s.actor, ` removed a member${str(s.meta.role) ? ` (${str(s.meta.role)})` : ''}`],
  'device.approve': (s) => [s.actor, ` approved a CLI sign-in from ${quoted(s.meta.clientName)}`],
  'device.deny': (s) => [s.actor, ` denied a CLI sign-in from ${quoted(s.meta.clientName)}`],
  'token.create': (s) => [
    s.actor,
    ' created the access token ',
    { text: quoted(s.meta.name), href: '/tokens' },
    s.meta.via === 'device' ? ' by signing in with the CLI' : '',
  ],
  'token.revoke': (s) => [s.actor, ' revoked the access token ', { text: quoted(s.meta.name), href: '/tokens' }],
  'project.create': (s) => [s.actor, ' created the project ', linked(s, str(s.meta.slug) ?? 'unnamed', '')],
  'project.delete': (s) => [s.actor, ` deleted the project ${str(s.meta.slug) ?? ''} with its data, releases, backups and domains`],
  'release.create': (s) => {
    const bytes = num(s.meta.bundleBytes);
    return [s.actor, ' uploaded ', ...release(s), bytes === null ? '' : ` (${formatBytes(bytes)})`];
  },
  'release.activate': (s) => [
    s.actor,
    ' deployed ',
    ...release(s),
    ...(str(s.meta.previousReleaseId) ? [', replacing ', ...release(s, 'previousReleaseId')] : []),
  ],
  'release.fail': (s) => [
    'Deploy of ',
    ...release(s),
    ` failed at ${str(s.meta.step) ?? 'an unknown step'}: ${str(s.meta.reason) ?? 'no reason recorded'} `,
    { code: str(s.meta.code) ?? 'SVC_INTERNAL' },
    ...(str(s.meta.activeReleaseId) ? ['; ', ...release(s, 'activeReleaseId'), ' kept serving'] : ['; nothing is serving']),
  ],
  'release.delete': (s) => [
    s.actor,
    ' removed the files of ',
    ...release(s),
    s.meta.rollbackLoss === true ? ' (the rollback target of the active release)' : '',
  ],
  'rollback.start': (s) => [s.actor, ' started a rollback to ', ...release(s)],
  'rollback.complete': (s) => [
    s.actor,
    ' rolled back to ',
    ...release(s),
    ...(str(s.meta.fromReleaseId) ? [' from ', ...release(s, 'fromReleaseId')] : []),
    ', data unchanged',
  ],
  'rollback.restore_data': (s) => [
    s.actor,
    ' rolled back to ',
    ...release(s),
    ...(str(s.meta.fromReleaseId) ? [' from ', ...release(s, 'fromReleaseId')] : []),
    ', data restored from the snapshot taken before the deploy (later writes were lost)',
  ],
  'rollback.fail': (s) => [
    `${s.actor}’s rollback to `,
    ...release(s),
    s.meta.restoreData === true ? ' with restored data' : '',
    ` failed: ${str(s.meta.reason) ?? 'no reason recorded'} `,
    { code: str(s.meta.code) ?? 'SVC_INTERNAL' },
  ],
  'lock.recovered': (s) => [
    `svc took over the project lock left by a stopped process${str(s.meta.operation) ? ` (it was running a ${str(s.meta.operation)})` : ''}`,
  ],
  'backup.create': (s) => {
    const bytes = num(s.meta.sizeBytes);
    return [
      s.actor,
      ` took a ${s.meta.kind === 'scheduled' ? 'scheduled ' : ''}`,
      linked(s, 'backup', '/backups'),
      bytes === null ? '' : ` (${formatBytes(bytes)})`,
    ];
  },
  'backup.restore': (s) => [
    s.actor,
    ' restored the database from a ',
    linked(s, 'backup', '/backups'),
    s.meta.restartError ? ' (the app did not restart)' : '',
  ],
  'backup.schedule': (s) =>
    s.meta.enabled === false
      ? [s.actor, ' turned off scheduled ', linked(s, 'backups', '/backups')]
      : [
          s.actor,
          ' scheduled ',
          linked(s, 'backups', '/backups'),
          ` ${minutes(s.meta.intervalMinutes)}${num(s.meta.keep) ? `, keeping ${num(s.meta.keep)}` : ''}`,
        ],
  'backup.failed': (s) => [
    `A ${s.meta.kind === 'scheduled' ? 'scheduled ' : ''}`,
    linked(s, 'backup', '/backups'),
    ` failed: ${str(s.meta.reason) ?? 'no reason recorded'} `,
    { code: str(s.meta.code) ?? 'SVC_INTERNAL' },
  ],
  'backup.overdue': (s) => ['A scheduled ', linked(s, 'backup', '/backups'), ` is overdue (${minutes(s.meta.intervalMinutes)})`],
  'backup.delete': (s) => [s.actor, ' removed a ', linked(s, 'backup', '/backups'), s.meta.reason === 'retention' ? ' (retention)' : ''],
  'secret.set': (s) => [
    s.actor,
    s.meta.created === false ? ' replaced the value of the secret ' : ' added the secret ',
    linked(s, str(s.meta.name) ?? '?', '/secrets'),
  ],
  'secret.delete': (s) => [s.actor, ' deleted the secret ', linked(s, str(s.meta.name) ?? '?', '/secrets')],
  'domain.add': (s) => [s.actor, ' added the domain ', linked(s, str(s.meta.domain) ?? '?', '/domains')],
  'domain.remove': (s) => [s.actor, ' removed the domain ', linked(s, str(s.meta.domain) ?? '?', '/domains')],
  'github.link': (s) => [
    s.actor,
    ' linked the repository ',
    linked(s, str(s.meta.repository) ?? '?', '/github'),
    str(s.meta.branch) ? ` (branch ${str(s.meta.branch)})` : '',
  ],
  'github.unlink': (s) => [s.actor, ' unlinked the repository ', linked(s, str(s.meta.repository) ?? '?', '/github')],
  'github.command': (s) => [
    s.actor,
    ` commented /svc ${str(s.meta.command) ?? ''} on pull request #${num(s.meta.pullRequest) ?? '?'}: `,
    s.meta.ok === true ? 'done' : 'refused',
    ' ',
    { code: str(s.meta.outcome) ?? '?' },
  ],
  'github.rerun': (s) => [s.actor, ` re-ran the release check of commit ${(str(s.meta.sha) ?? '?').slice(0, 7)}: ${str(s.meta.outcome) ?? '?'}`],
  'recovery.enable': (s) => [s.actor, ' turned on ', linked(s, 'point-in-time recovery', '/recovery'), ' (from the next release or restart)'],
  'recovery.rotate': (s) => [...capitalized(release(s)), ' began a new ', linked(s, 'recovery', '/recovery'), ' epoch'],
  'recovery.restore_create': (s) => {
    const bytes = num(s.meta.sizeBytes);
    return [s.actor, ' wrote a ', linked(s, 'point-in-time restore', '/recovery'), bytes === null ? '' : ` (${formatBytes(bytes)})`];
  },
  'recovery.restore': (s) => [
    s.actor,
    ' replaced the database with a ',
    linked(s, 'point-in-time restore', '/recovery'),
    str(s.meta.commitTime) ? ` as of ${str(s.meta.commitTime)}` : '',
  ],
  'node.token': (s) => [s.actor, ' created a runner-node registration token'],
  'node.enroll': (s) => [`Runner node ${str(s.meta.nodeId) ?? '?'} enrolled${str(s.meta.region) ? ` in ${str(s.meta.region)}` : ''}`],
  'node.place': (s) => [s.actor, ` placed the project on runner node ${str(s.meta.nodeId) ?? '?'}`],
  'node.generation': (s) =>
    s.meta.state === 'running'
      ? [s.actor, ` asked runner node ${str(s.meta.nodeId) ?? '?'} to run `, ...release(s), s.meta.canary === true ? ' as a canary' : '']
      : [s.actor, ` asked runner node ${str(s.meta.nodeId) ?? '?'} to stop the app`],
  'preview.create': (s) => [
    `Preview of pull request #${num(s.meta.number) ?? '?'} created at ${str(s.meta.slug) ?? '?'}`,
    s.meta.dataSource === 'production' ? ' with a copy of production data' : '',
  ],
  'preview.delete': (s) => [s.actor, ` removed the preview ${str(s.meta.slug) ?? ''} with its data`, str(s.meta.reason) ? ` (${str(s.meta.reason)})` : ''],
  'preview.settings': (s) => [s.actor, s.meta.data === 'production' ? ' made new previews copy production data' : ' made new previews start with empty data'],
};

/** Who did it: a person or token by name, GitHub users with their login, the platform as "svc". */
export function actorName(actor: AuditEvent['actor']): string {
  if (actor.type === 'system') return 'svc';
  if (actor.type === 'github') return `${actor.name ?? actor.id} (GitHub)`;
  return actor.name ?? actor.id;
}

/** The sentence of one event; an unknown kind (newer server) reads "<actor>: <kind>". */
export function describeEvent(event: AuditEvent, context: SentenceContext): SentencePart[] {
  const base = event.projectId ? context.projectPath(event.projectId) : null;
  const subject: Subject = { actor: actorName(event.actor), meta: event.metadata, page: (tab) => (base === null ? undefined : `${base}${tab}`) };
  const rule = Object.hasOwn(rules, event.kind) ? rules[event.kind as AuditKind] : null;
  const parts = rule ? rule(subject) : [`${subject.actor}: `, { code: event.kind }];
  return parts.filter((p) => p !== '');
}

/** The sentence as plain text (titles, tests). */
export function sentenceText(parts: readonly SentencePart[]): string {
  return parts.map((p) => (typeof p === 'string' ? p : 'text' in p ? p.text : p.code)).join('');
}
