/** Escape text for HTML element content and attribute values. Pure. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
}

/** Strict CSP for server-rendered pages: only our own script and style files, no inline code, no framing. */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export const PAGE_SCRIPT_PATH = '/__svc/assets/pages.js';
export const PAGE_STYLE_PATH = '/__svc/assets/pages.css';

/** A whole page around `body` (already escaped HTML); `csrfToken` goes in a meta tag the script reads. */
export function renderPage(title: string, body: string, csrfToken?: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(title)} · svc</title>
${csrfToken ? `<meta name="svc-csrf" content="${escapeHtml(csrfToken)}">` : ''}
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${PAGE_STYLE_PATH}">
<script src="${PAGE_SCRIPT_PATH}" defer></script>
</head>
<body>
<header class="topbar"><a class="brand" href="/" aria-label="svc console home">svc</a></header>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
<p id="error" role="alert" data-error></p>
<p id="result" role="status" data-result></p>
</main>
</body>
</html>`;
}

// Until the console owns "/", signing in lands on the device page (it shows who is signed in).
const DEFAULT_NEXT = '/device';

/** A same-site relative path to return to after sign-in, or the default for anything else (no open redirects). Pure. */
export function safeNext(next: string | undefined): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.includes('\\')) return DEFAULT_NEXT;
  return next;
}
