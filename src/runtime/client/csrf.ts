/** Name of the page meta element that carries the CSRF token. */
export const CSRF_META_NAME = 'svc-csrf';

/** Read the CSRF token from `<meta name="svc-csrf" content="...">` when running in a browser. */
export function readCsrfMeta(): string | undefined {
  const doc = (globalThis as { document?: { querySelector(s: string): { getAttribute(n: string): string | null } | null } }).document;
  return doc?.querySelector(`meta[name="${CSRF_META_NAME}"]`)?.getAttribute('content') ?? undefined;
}
