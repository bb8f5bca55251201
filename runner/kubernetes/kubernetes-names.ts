// Names and labels of everything svc puts in a cluster, pure. Kubernetes names are DNS-1123 labels
// (lowercase, at most 63 characters) and label values are at most 63 characters, while svc ids such
// as `prj_k3j…` hold underscores: ids that do not fit get a readable slug plus a hash of the exact id,
// under a prefix plain names never take, so two projects never share a namespace, a label value or a job.
import { createHash } from 'node:crypto';
import { SvcError } from '../../src/core/errors.js';
import { SWARM_LABELS } from '../swarm/swarm-names.js';

/** The `svc.*` label keys of the swarm layer (one vocabulary for both), plus Kubernetes' managed-by. */
export const KUBERNETES_LABELS = { ...SWARM_LABELS, managedBy: 'app.kubernetes.io/managed-by' } as const;
export const MANAGED_BY = 'svc';

/** Object names inside a project's namespace (the namespace is the project, so they are fixed). */
export const OBJECT_NAMES = {
  app: 'app',
  canary: 'canary',
  data: 'data',
  networkPolicy: 'svc-project',
} as const;

const DNS_LABEL = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?$/;
const LABEL_VALUE = /^[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const HASHED_VALUE = /^h-[0-9a-f]{40}$/;
const NAME_MAX = 63;

function hash(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\0')).digest('hex');
}

/** Whether `name` is a DNS-1123 label (what namespaces, services and most object names must be). */
export function isDnsLabel(name: string): boolean {
  return name.length <= NAME_MAX && DNS_LABEL.test(name);
}

/** `<prefix>-<id>` when the id is a DNS label and fits, else `<prefix>h-<slug>-<hash>` (80 bits of the exact id). */
export function fittedName(prefix: string, id: string): string {
  const plain = `${prefix}-${id}`;
  if (DNS_LABEL.test(id) && plain.length <= NAME_MAX) return plain;
  const slug = id
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 24)
    .replace(/-+$/, '');
  return [`${prefix}h`, ...(slug === '' ? [] : [slug]), hash(prefix, id).slice(0, 20)].join('-');
}

/** A label value for an id: the id itself when it is a valid value, else `h-<hash>` (the full id goes in an annotation). */
export function labelValue(id: string): string {
  if (id.length <= NAME_MAX && LABEL_VALUE.test(id) && !HASHED_VALUE.test(id)) return id;
  return `h-${hash('label', id).slice(0, 40)}`;
}

/** The namespace of one project: every object of the project lives in it, and nothing else does. */
export function projectNamespaceName(projectId: string): string {
  return fittedName('svc-p', projectId);
}

/** The Secret holding a generation's app secrets (immutable: a new generation gets a new one). */
export function appSecretName(generation: number): string {
  if (!Number.isSafeInteger(generation) || generation < 1) throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'The generation must be a positive integer');
  return `env-g${generation}`;
}

/** What an artifact credential was minted for: a release's pods, or one job run. */
export type CredentialScope = 'release' | 'job';

/** The Secret holding the short-lived artifact credential of one release or one job run. */
export function artifactCredentialName(scope: CredentialScope, id: string): string {
  return fittedName(scope === 'release' ? 'artifact' : 'artifact-job', id);
}

/** One job run's name: unique per job id (a finished Job never blocks the next one's name). */
export function jobName(jobId: string): string {
  if (!/^[a-zA-Z0-9_-]{1,128}$/.test(jobId)) throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'A job id must be letters, digits, - and _');
  return fittedName('job', jobId);
}
