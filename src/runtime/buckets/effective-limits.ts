// Quota math (pure): the effective limit is the strictest of the bucket definition, the per-owner caps and
// the deployment-wide ceilings. Usage always includes open reservations so parallel uploads cannot overcommit.
import type { BucketDefinition } from './define-bucket.js';
import { RuntimeError } from '../errors.js';

/** Deployment-wide ceilings across all buckets (`SVC_BUCKET_MAX_BYTES`, `SVC_BUCKET_MAX_OBJECTS`). */
export interface DeploymentLimits {
  readonly maxBytes: number;
  readonly maxObjects: number;
}

/** Objects and bytes: stored (active generations) plus reserved (pending uploads). */
export interface UsageCounts {
  readonly objects: number;
  readonly bytes: number;
  readonly reservedObjects: number;
  readonly reservedBytes: number;
}

/** Usage at the three scopes a write is checked against. */
export interface ScopedUsage {
  readonly bucket: UsageCounts;
  readonly owner: UsageCounts;
  readonly deployment: UsageCounts;
}

/** What a write adds: one object or none (a replacement), and its byte delta (never negative when reserved). */
export interface QuotaRequest {
  readonly objects: 0 | 1;
  readonly bytes: number;
}

export const NO_USAGE: UsageCounts = { objects: 0, bytes: 0, reservedObjects: 0, reservedBytes: 0 };

/** Parse the deployment ceilings from the environment; absent means unlimited. Throws SVC_BUCKET_CONFIG on junk. */
export function deploymentLimitsFromEnv(env: Readonly<Record<string, string | undefined>>): DeploymentLimits {
  return {
    maxBytes: parseCeiling(env.SVC_BUCKET_MAX_BYTES, 'SVC_BUCKET_MAX_BYTES'),
    maxObjects: parseCeiling(env.SVC_BUCKET_MAX_OBJECTS, 'SVC_BUCKET_MAX_OBJECTS'),
  };
}

function parseCeiling(raw: string | undefined, name: string): number {
  if (raw === undefined || raw.trim() === '') return Number.POSITIVE_INFINITY;
  if (!/^\d{1,16}$/.test(raw.trim())) throw new RuntimeError('SVC_BUCKET_CONFIG', `${name} must be a whole number, got "${raw}".`);
  return Number(raw.trim());
}

/** Combine ceilings: app code may lower the environment's ceilings, never raise them. */
export function strictestDeployment(a: DeploymentLimits, b: Partial<DeploymentLimits> | undefined): DeploymentLimits {
  return { maxBytes: Math.min(a.maxBytes, b?.maxBytes ?? Infinity), maxObjects: Math.min(a.maxObjects, b?.maxObjects ?? Infinity) };
}

/** Largest object the bucket can ever accept under all caps. */
export function effectiveMaxObjectBytes(definition: BucketDefinition, deployment: DeploymentLimits): number {
  return Math.min(definition.maxObjectBytes, definition.perOwnerMaxBytes, definition.maxBytes, deployment.maxBytes);
}

/** Which cap a write would exceed, or null when it fits. Pure; callers run it inside the catalog transaction. */
export function quotaViolation(definition: BucketDefinition, deployment: DeploymentLimits, usage: ScopedUsage, request: QuotaRequest): string | null {
  const checks: Array<[string, UsageCounts, number, number]> = [
    ['perOwnerMaxObjects', usage.owner, definition.perOwnerMaxObjects, Number.NaN],
    ['perOwnerMaxBytes', usage.owner, Number.NaN, definition.perOwnerMaxBytes],
    ['maxObjects', usage.bucket, definition.maxObjects, Number.NaN],
    ['maxBytes', usage.bucket, Number.NaN, definition.maxBytes],
    ['SVC_BUCKET_MAX_OBJECTS', usage.deployment, deployment.maxObjects, Number.NaN],
    ['SVC_BUCKET_MAX_BYTES', usage.deployment, Number.NaN, deployment.maxBytes],
  ];
  const bytes = Math.max(0, request.bytes);
  for (const [name, counts, maxObjects, maxBytes] of checks) {
    if (!Number.isNaN(maxObjects) && request.objects > 0 && counts.objects + counts.reservedObjects + request.objects > maxObjects) return name;
    if (!Number.isNaN(maxBytes) && bytes > 0 && counts.bytes + counts.reservedBytes + bytes > maxBytes) return name;
  }
  return null;
}

/** What a new or replacing upload reserves: +1 object unless it replaces, and only the byte growth. */
export function reservationFor(declaredLength: number, existingSize: number | null): QuotaRequest {
  return { objects: existingSize === null ? 1 : 0, bytes: Math.max(0, declaredLength - (existingSize ?? 0)) };
}
