// Pages hand the CSRF token to the client through <meta name="svc-csrf">; the client keeps it in memory.

/** Escape text for an HTML attribute value. */
function escapeAttribute(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** `<meta name="svc-csrf" content="…">` for a session (empty content when signed out). */
export function renderCsrfMeta(session: { csrfToken: string } | null): string {
  return `<meta name="svc-csrf" content="${escapeAttribute(session?.csrfToken ?? '')}">`;
}
