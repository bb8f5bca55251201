// Where a variant lives: in the same bucket and partition as its original, under a reserved key prefix, so
// quota, ownership and the upload policy apply to variants exactly as to originals.
import { RuntimeError } from '../../errors.js';

/** Reserved key prefix of derived variants (`.variants/<variant>/<original key>`). */
export const VARIANT_PREFIX = '.variants/';

/** The object key of variant `name` of the object `key`. */
export function variantKey(key: string, name: string): string {
  if (isVariantKey(key)) throw new RuntimeError('SVC_BUCKET_INVALID_KEY', 'A variant has no variants of its own.');
  if (!/^[a-z][a-z0-9_-]{0,31}$/.test(name)) throw new RuntimeError('SVC_BUCKET_INVALID_REQUEST', `"${name.slice(0, 40)}" is not a variant name.`);
  return `${VARIANT_PREFIX}${name}/${key}`;
}

/** Whether a key names a derived variant (writes to these keys come only from variant generation). */
export function isVariantKey(key: string): boolean {
  return key.startsWith(VARIANT_PREFIX);
}

/** The variant name and original key of a variant key, or null for ordinary keys. */
export function parseVariantKey(key: string): { name: string; original: string } | null {
  if (!isVariantKey(key)) return null;
  const rest = key.slice(VARIANT_PREFIX.length);
  const slash = rest.indexOf('/');
  if (slash <= 0 || slash === rest.length - 1) return null;
  return { name: rest.slice(0, slash), original: rest.slice(slash + 1) };
}
