// Names and labels of everything svc creates in a swarm, pure. Swarm names must be DNS-label-like and
// short; ids that do not fit are hashed, so two projects never share a service, volume or secret.
import { createHash } from 'node:crypto';
import { SvcError } from '../../src/core/errors.js';

/** Label keys on every service, task, volume and secret svc creates (the driver only touches these). */
export const SWARM_LABELS = {
  project: 'svc.project',
  release: 'svc.release',
  generation: 'svc.generation',
  digest: 'svc.digest',
  role: 'svc.role',
  job: 'svc.job',
  secret: 'svc.secret',
} as const;

/** What a swarm service of a project is for. */
export type SwarmServiceRole = 'app' | 'canary' | 'job';

// Service names: a DNS label of at most 63 characters (swarm refuses others).
const plainId = /^[a-zA-Z0-9](?:[-_]*[a-zA-Z0-9]+)*$/;
const SERVICE_NAME_MAX = 63;

function hash(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\0')).digest('hex');
}

/** `svc-<prefix>-<id>` when it fits as a plain name, otherwise `svc-<prefix>h-<hash>`. */
function fitted(prefix: string, id: string): string {
  const plain = `svc-${prefix}-${id}`;
  if (plainId.test(id) && plain.length <= SERVICE_NAME_MAX) return plain;
  return `svc-${prefix}h-${hash(prefix, id).slice(0, 32)}`;
}

/** The long-running service of a project (`app`) or its canary (a second service beside it). */
export function swarmServiceName(projectId: string, role: 'app' | 'canary'): string {
  return fitted(role === 'app' ? 'a' : 'c', projectId);
}

/** One job's service: unique per job id, so a finished job never blocks the next one's name. */
export function swarmJobServiceName(projectId: string, jobId: string): string {
  if (!plainId.test(jobId)) throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'A swarm job id must be letters, digits, - and _');
  return `svc-jh-${hash('job', projectId, jobId).slice(0, 32)}`;
}

/** The named volume holding a project's data (one per project, on one node). */
export function swarmVolumeName(projectId: string): string {
  return fitted('v', projectId);
}

/**
 * The swarm secret carrying one value of one generation. Swarm secrets are immutable, so each
 * generation gets its own; the name is a hash (values and names never leak through it).
 */
export function swarmSecretName(projectId: string, generation: number, name: string): string {
  return `svc-s-${hash('secret', projectId, String(generation), name).slice(0, 40)}`;
}
