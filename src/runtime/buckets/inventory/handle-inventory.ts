// GET {prefix}/buckets — the read-only file inventory of the signed-in user: buckets (server-only ones
// omitted), key-prefix folders, at most 100 objects a page, five-minute download capabilities for private
// objects. User buckets show only the caller's partition; the owner never comes from the request.
import { z } from 'zod';
import type { Identity } from '../../engine.js';
import { RuntimeError } from '../../errors.js';
import type { BucketAccess } from '../agent/bucket-access.js';
import { ownerFor } from '../agent/bucket-access.js';
import { INVENTORY_HEADERS } from './inventory-headers.js';
import { renderInventory, type InventoryEntry } from './render-inventory.js';
import { escapeHtml } from './html.js';

/** Objects per inventory page (at most 100). */
export const INVENTORY_PAGE_SIZE = 100;
/** Lifetime of download capabilities on the page: five minutes, so a copied link soon stops working. */
export const INVENTORY_LINK_TTL_MS = 5 * 60 * 1000;

/** What the route needs from the Fetch handler. */
export interface InventoryRequest {
  readonly request: Request;
  readonly prefix: string;
  /** The session's identity (null when signed out). */
  readonly identity: Identity | null;
  /** Where to send signed-out browsers (303); without it they get a 401 page. */
  readonly signInPath?: string;
}

const Query = z.object({
  bucket: z.string().max(64).optional(),
  prefix: z.string().max(1024).optional(),
  cursor: z.string().max(1024).optional(),
});

function page(status: number, body: string, extra: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { ...INVENTORY_HEADERS, ...extra } });
}

function errorPage(status: number, message: string): Response {
  return page(
    status,
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Files</title></head><body><h1>Files</h1><p>${escapeHtml(message)}</p></body></html>`,
  );
}

/** Serve the inventory page. */
export async function handleInventory(access: BucketAccess, input: InventoryRequest): Promise<Response> {
  const method = input.request.method.toUpperCase();
  if (method !== 'GET' && method !== 'HEAD') return page(405, '', { allow: 'GET, HEAD' });
  if (input.identity === null) {
    if (input.signInPath !== undefined) return page(303, '', { location: input.signInPath });
    return errorPage(401, 'Sign in to see your files.');
  }
  const url = new URL(input.request.url);
  const parsed = Query.safeParse(Object.fromEntries(url.searchParams));
  if (!parsed.success) return errorPage(400, 'Malformed navigation parameters.');
  const visible = access.definitions().filter((d) => d.browserAccess !== 'server');
  const selected = parsed.data.bucket === undefined ? null : (visible.find((d) => d.name === parsed.data.bucket) ?? null);
  const basePath = `${input.prefix}/buckets`;
  const view = {
    basePath,
    email: input.identity.email,
    buckets: visible.map((d) => ({ name: d.name, description: d.description, ownership: d.ownership, visibility: d.visibility })),
    bucket: selected?.name ?? null,
    prefix: '',
    folders: [] as string[],
    entries: [] as InventoryEntry[],
    nextCursor: null as string | null,
    usage: null as Awaited<ReturnType<BucketAccess['list']>>['usage']['owner'] | null,
    message: parsed.data.bucket !== undefined && selected === null ? 'No such bucket.' : null,
  };
  if (selected !== null) {
    const owner = ownerFor(selected, input.identity.userId);
    const prefix = parsed.data.prefix ?? '';
    let list;
    try {
      list = await access.list({ bucket: selected.name, owner, prefix, cursor: parsed.data.cursor ?? null, limit: INVENTORY_PAGE_SIZE });
    } catch (error) {
      if (error instanceof RuntimeError && error.status < 500) return errorPage(error.status, error.message);
      throw error;
    }
    const folders = new Set<string>();
    for (const object of list.objects.slice(0, INVENTORY_PAGE_SIZE)) {
      const rest = object.key.slice(prefix.length);
      const slash = rest.indexOf('/');
      if (slash >= 0) {
        folders.add(rest.slice(0, slash + 1));
        continue;
      }
      const href = object.url ?? access.readUrl({ bucket: selected.name, owner, key: object.key, ttlMs: INVENTORY_LINK_TTL_MS }).url;
      view.entries.push({ name: rest, key: object.key, size: object.size, contentType: object.contentType, updatedAt: object.updatedAt, href });
    }
    view.prefix = prefix;
    view.folders = [...folders];
    view.nextCursor = list.nextCursor;
    view.usage = list.usage.owner;
  }
  const body = renderInventory(view);
  return page(200, method === 'HEAD' ? '' : body);
}
