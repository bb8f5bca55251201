// The inventory page (pure): bucket list, key-prefix navigation, one page of objects with download links.
// Server-rendered, escaped, script-free; the only styling is one stylesheet pinned by hash in the CSP.
import { createHash } from 'node:crypto';
import { formatBytes } from '../../../core/format-bytes.js';
import type { UsageCounts } from '../effective-limits.js';
import { SafeHtml, html } from './html.js';

/** One row of the page. `href` is a 5-minute read capability (private) or the opaque public URL. */
export interface InventoryEntry {
  readonly name: string;
  readonly key: string;
  readonly size: number;
  readonly contentType: string;
  readonly updatedAt: number;
  readonly href: string;
}

/** Everything the page shows (already scoped to the signed-in user). */
export interface InventoryView {
  readonly basePath: string;
  readonly email: string;
  readonly buckets: ReadonlyArray<{ name: string; description: string; ownership: 'user' | 'app'; visibility: 'private' | 'public' }>;
  readonly bucket: string | null;
  readonly prefix: string;
  readonly folders: readonly string[];
  readonly entries: readonly InventoryEntry[];
  readonly nextCursor: string | null;
  readonly usage: UsageCounts | null;
  readonly message: string | null;
}

/** The page's stylesheet; its hash is the only style source the CSP allows. */
export const INVENTORY_STYLE =
  'body{font:14px system-ui,sans-serif;margin:2rem;color:#222}table{border-collapse:collapse}td,th{padding:.25rem .75rem;text-align:left;border-bottom:1px solid #ddd}nav a{margin-right:1rem}.muted{color:#666}';

/** Content-Security-Policy of the page: nothing loads, nothing runs, nothing frames it. */
export const INVENTORY_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(INVENTORY_STYLE).digest('base64')}'`,
  "script-src 'none'",
  "img-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Link to the page with the given navigation state. */
export function inventoryHref(basePath: string, state: { bucket?: string | null; prefix?: string; cursor?: string | null }): string {
  const params = new URLSearchParams();
  if (state.bucket) params.set('bucket', state.bucket);
  if (state.prefix) params.set('prefix', state.prefix);
  if (state.cursor) params.set('cursor', state.cursor);
  const query = params.toString();
  return query === '' ? basePath : `${basePath}?${query}`;
}

/** Render the whole document. */
export function renderInventory(view: InventoryView): string {
  const link = (state: { bucket?: string | null; prefix?: string; cursor?: string | null }) => inventoryHref(view.basePath, state);
  const crumbs: SafeHtml[] = [];
  if (view.bucket !== null) {
    crumbs.push(html`<a href="${link({ bucket: view.bucket })}">${view.bucket}</a>`);
    let acc = '';
    for (const segment of view.prefix.split('/').filter((s) => s !== '')) {
      acc += `${segment}/`;
      crumbs.push(html` / <a href="${link({ bucket: view.bucket, prefix: acc })}">${segment}</a>`);
    }
  }
  const bucketNav = view.buckets.map(
    (b) => html`<a href="${link({ bucket: b.name })}"${b.name === view.bucket ? html` aria-current="page"` : ''}>${b.name}</a> `,
  );
  const folderRows = view.folders.map(
    (f) =>
      html`<tr><td><a href="${link({ bucket: view.bucket, prefix: view.prefix + f })}">${f}</a></td><td class="muted">folder</td><td></td><td></td><td></td></tr>`,
  );
  const rows = view.entries.map(
    (e) =>
      html`<tr><td>${e.name}</td><td>${e.contentType}</td><td>${formatBytes(e.size)}</td><td>${new Date(e.updatedAt).toISOString()}</td><td><a href="${e.href}" download="${e.key.split('/').pop() ?? 'file'}" rel="noopener noreferrer">download</a></td></tr>`,
  );
  const usage =
    view.usage === null
      ? ''
      : html`<p class="muted">Your usage in this bucket: ${view.usage.objects} objects, ${formatBytes(view.usage.bytes)} (${view.usage.reservedObjects} uploads pending, ${formatBytes(view.usage.reservedBytes)} reserved).</p>`;
  const body =
    view.bucket === null
      ? html`<p>Choose a bucket.</p>`
      : html`<p>${crumbs}</p>${usage}<table><thead><tr><th>Name</th><th>Type</th><th>Size</th><th>Updated</th><th></th></tr></thead><tbody>${folderRows}${rows}</tbody></table>${
          view.entries.length === 0 && view.folders.length === 0 ? html`<p class="muted">No files here.</p>` : ''
        }${view.nextCursor === null ? '' : html`<p><a href="${link({ bucket: view.bucket, prefix: view.prefix, cursor: view.nextCursor })}">Next page</a></p>`}`;
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><meta name="robots" content="noindex"><title>Files</title><style>${new SafeHtml(INVENTORY_STYLE)}</style></head><body><h1>Files</h1><p class="muted">Signed in as ${view.email}. Download links expire after five minutes.</p>${
    view.message === null ? '' : html`<p>${view.message}</p>`
  }<nav>${bucketNav.length === 0 ? html`<span class="muted">No buckets to show.</span>` : bucketNav}</nav>${body}</body></html>`.html;
}
