// Header rewriting for the proxy: pure functions over header lists, no allocation beyond the result.
import type { IncomingHttpHeaders } from 'node:http';
import { carriesSvcToken, isPlatformHeader, PLATFORM_COOKIES, withoutCookies } from './platform-credentials.js';

// Hop-by-hop headers (RFC 9110 §7.6.1) plus ones undici refuses (`expect`) or that are meant for
// this proxy only (proxy-authorization).
const REQUEST_DROP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'proxy-authorization',
  'expect',
  'http2-settings',
]);
const RESPONSE_DROP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'proxy-authenticate']);

/** Tokens of a Connection header that name further hop-by-hop headers (keep-alive/close excluded). */
function nominated(value: string | string[] | undefined): string[] | null {
  if (value === undefined) return null;
  const text = Array.isArray(value) ? value.join(',') : value;
  const lower = text.toLowerCase();
  if (lower === 'keep-alive' || lower === 'close') return null;
  const tokens = lower
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '' && t !== 'keep-alive' && t !== 'close');
  return tokens.length > 0 ? tokens : null;
}

/** The client address as a plain IP (IPv4-mapped IPv6 shown as IPv4). */
export function clientAddress(remote: string | undefined): string {
  if (remote === undefined) return 'unknown';
  return remote.startsWith('::ffff:') && remote.includes('.') ? remote.slice(7) : remote;
}

function forwardedNode(ip: string): string {
  return ip.includes(':') ? `"[${ip}]"` : ip;
}

function forwardedValue(value: string): string {
  return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(value) ? value : `"${value.replace(/["\\]/g, '\\$&')}"`;
}

/** Upstream request headers and whether the request carries a body. */
export interface UpstreamHeaders {
  headers: string[];
  hasBody: boolean;
}

/**
 * Request headers for the upstream as a flat `[name, value, …]` list: hop-by-hop headers removed,
 * platform credentials removed (an `Authorization` carrying an svc token, platform cookies, the
 * platform's `x-svc-*` headers), `Host` preserved, and `X-Forwarded-For/-Proto/-Host` and
 * `Forwarded` set. Incoming forwarding headers are kept (and appended to) only when `trustProxy`
 * says a trusted proxy is in front; platform credentials are removed either way.
 */
export function upstreamRequestHeaders(rawHeaders: readonly string[], clientIp: string, proto: 'http' | 'https', trustProxy: boolean): UpstreamHeaders {
  const out: string[] = [];
  let hasBody = false;
  let host = '';
  let xff: string | undefined;
  let xfp: string | undefined;
  let xfh: string | undefined;
  let fwd: string | undefined;
  let connection: string[] | null = null;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    const value = rawHeaders[i + 1]!;
    if (REQUEST_DROP.has(name)) {
      if (name === 'connection') connection = nominated(value);
      else if (name === 'transfer-encoding') hasBody = true;
      continue;
    }
    if (isPlatformHeader(name)) continue;
    switch (name) {
      case 'authorization':
        if (carriesSvcToken(value)) continue;
        break;
      case 'cookie': {
        // The app's other cookies pass; a header left with none is dropped rather than sent empty.
        const kept = withoutCookies(value, PLATFORM_COOKIES);
        if (kept !== null) out.push(name, kept);
        continue;
      }
      case 'content-length':
        if (value !== '0') hasBody = true;
        break;
      case 'host':
        host = value;
        break;
      case 'x-forwarded-for':
        xff = xff === undefined ? value : `${xff}, ${value}`;
        continue;
      case 'x-forwarded-proto':
        xfp ??= value;
        continue;
      case 'x-forwarded-host':
        xfh ??= value;
        continue;
      case 'forwarded':
        fwd = fwd === undefined ? value : `${fwd}, ${value}`;
        continue;
    }
    out.push(name, value);
  }
  if (connection !== null) {
    for (let i = out.length - 2; i >= 0; i -= 2) if (connection.includes(out[i]!)) out.splice(i, 2);
  }
  const element = `for=${forwardedNode(clientIp)};host=${forwardedValue(host)};proto=${proto}`;
  out.push(
    'x-forwarded-for',
    trustProxy && xff !== undefined ? `${xff}, ${clientIp}` : clientIp,
    'x-forwarded-proto',
    trustProxy && xfp !== undefined ? xfp : proto,
    'x-forwarded-host',
    trustProxy && xfh !== undefined ? xfh : host,
    'forwarded',
    trustProxy && fwd !== undefined ? `${fwd}, ${element}` : element,
  );
  return { headers: out, hasBody };
}

/** Response headers for the client as a flat `[name, value, …]` list without hop-by-hop headers. */
export function downstreamResponseHeaders(headers: IncomingHttpHeaders): string[] {
  const out: string[] = [];
  const connection = nominated(headers.connection);
  for (const name in headers) {
    if (RESPONSE_DROP.has(name) || (connection !== null && connection.includes(name))) continue;
    const value = headers[name];
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) out.push(name, v);
    else out.push(name, value);
  }
  return out;
}
