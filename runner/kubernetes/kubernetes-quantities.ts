// The podman-style limits svc is configured with (`512m` = 512 MiB, `0.5` CPUs) as Kubernetes
// quantities. Care is needed: in Kubernetes `512m` means 0.512 bytes, so sizes always leave here with
// a binary suffix. Pure.
import { SvcError } from '../../src/core/errors.js';
import { nanoCpus, sizeBytes } from '../swarm/swarm-units.js';

const KI = 1024;

/** `512m` → `512Mi`, `1g` → `1Gi`, `1500k` → `1500Ki`; odd byte counts stay plain bytes. */
export function sizeQuantity(value: string): string {
  const bytes = sizeBytes(value);
  for (const [suffix, unit] of [
    ['Gi', KI ** 3],
    ['Mi', KI ** 2],
    ['Ki', KI],
  ] as const) {
    if (bytes % unit === 0) return `${bytes / unit}${suffix}`;
  }
  return String(bytes);
}

/** `1` → `1`, `0.5` → `500m`; Kubernetes keeps no finer precision than a millicore. */
export function cpuQuantity(value: string): string {
  const nano = nanoCpus(value);
  if (nano % 1_000_000 !== 0) throw new SvcError('SVC_CONTAINER_INVALID_SPEC', `${value} CPUs is finer than a millicore`);
  const milli = nano / 1_000_000;
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}

/** Milliseconds → whole seconds, rounded up and at least 1 (probe and grace fields take seconds). */
export function wholeSeconds(ms: number): number {
  if (!Number.isFinite(ms) || ms < 0) throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'A duration must be a non-negative number of milliseconds');
  return Math.max(1, Math.ceil(ms / 1000));
}
