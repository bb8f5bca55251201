// Unit conversions between the podman-style limits svc is configured with and the Engine API's
// integers (bytes, nano-CPUs, nanoseconds). Pure.
import { SvcError } from '../../src/core/errors.js';

const sizeUnits: Record<string, number> = { '': 1, b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

/** `512m` → bytes (podman's binary units: b, k, m, g). */
export function sizeBytes(value: string): number {
  const match = /^(\d+)([bkmg]?)$/i.exec(value.trim());
  const unit = match === null ? undefined : sizeUnits[(match[2] ?? '').toLowerCase()];
  if (match === null || unit === undefined) throw new SvcError('SVC_CONTAINER_INVALID_SPEC', `${value} is not a size such as 512m`);
  const bytes = Number(match[1]) * unit;
  if (!Number.isSafeInteger(bytes) || bytes <= 0) throw new SvcError('SVC_CONTAINER_INVALID_SPEC', `${value} is not a positive size`);
  return bytes;
}

/** `1` or `0.5` CPUs → nano-CPUs. */
export function nanoCpus(value: string): number {
  if (!/^\d+(\.\d{1,9})?$/.test(value.trim())) throw new SvcError('SVC_CONTAINER_INVALID_SPEC', `${value} is not a CPU count such as 1 or 0.5`);
  const nano = Math.round(Number(value) * 1e9);
  if (nano <= 0) throw new SvcError('SVC_CONTAINER_INVALID_SPEC', `${value} is not a positive CPU count`);
  return nano;
}

/** Milliseconds → the Engine API's nanoseconds. */
export function nanoseconds(ms: number): number {
  return Math.round(ms) * 1_000_000;
}

/** `nofile=4096:4096` → the Engine API's ulimit object. */
export function ulimit(value: string): { Name: string; Soft: number; Hard: number } {
  const match = /^([a-z]+)=(\d+):(\d+)$/.exec(value);
  if (match === null) throw new SvcError('SVC_CONTAINER_INVALID_SPEC', `${value} is not a ulimit such as nofile=4096:4096`);
  return { Name: match[1] ?? '', Soft: Number(match[2]), Hard: Number(match[3]) };
}
