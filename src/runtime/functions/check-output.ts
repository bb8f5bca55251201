// Function results must be plain JSON within a size limit; anything else fails the call (and, for a
// mutation, rolls back every write because the check runs inside the transaction).
import { RuntimeError } from '../errors.js';
import type { AnyValidator } from '../values/validators.js';

/** Largest function result, in JSON characters (1 MiB). */
export const MAX_OUTPUT_CHARS = 1024 * 1024;
const MAX_DEPTH = 64;

/** Validate a handler's result; returns the JSON text of the value (undefined becomes null). */
export function checkOutput(value: unknown, returns: AnyValidator | undefined, maxChars = MAX_OUTPUT_CHARS): { value: unknown; json: string } {
  if (value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function') {
    throw new RuntimeError('SVC_RUNTIME_INVALID_OUTPUT', 'Handlers are synchronous: return a value, not a promise.');
  }
  const plain = value === undefined ? null : value;
  assertJson(plain, 'result', new Set(), 0);
  if (returns !== undefined) returns.check(plain, 'result', 'SVC_RUNTIME_INVALID_OUTPUT');
  const json = JSON.stringify(plain);
  if (json.length > maxChars) throw new RuntimeError('SVC_RUNTIME_OUTPUT_TOO_LARGE', `The result is ${json.length} characters; the limit is ${maxChars}.`);
  return { value: plain, json };
}

function assertJson(value: unknown, path: string, ancestors: Set<object>, depth: number): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw invalid(path, 'is not a finite number');
    return;
  }
  if (typeof value !== 'object') throw invalid(path, `is a ${typeof value}, not JSON`);
  if (depth >= MAX_DEPTH) throw invalid(path, `is nested deeper than ${MAX_DEPTH} levels`);
  if (ancestors.has(value)) throw invalid(path, 'is a circular reference');
  ancestors.add(value);
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      if (item === undefined) throw invalid(`${path}[${index}]`, 'is undefined');
      assertJson(item, `${path}[${index}]`, ancestors, depth + 1);
    });
  } else {
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) throw invalid(path, 'is not a plain object');
    for (const [key, item] of Object.entries(value)) {
      if (item !== undefined) assertJson(item, `${path}.${key}`, ancestors, depth + 1);
    }
  }
  ancestors.delete(value);
}

function invalid(path: string, reason: string): RuntimeError {
  return new RuntimeError('SVC_RUNTIME_INVALID_OUTPUT', `${path} ${reason}.`);
}
