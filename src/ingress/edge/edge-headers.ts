// Header lists for the ingress process's hop to the control plane. Pure; flat `[name, value, …]`
// lists as in `message.rawHeaders`.

/** Set by the ingress process on every forwarded request (any client-sent copy is dropped); the control plane trusts it only on its internal socket. */
export const CLIENT_ADDRESS_HEADER = 'x-svc-client-address';

// Hop-by-hop (RFC 9110 §7.6.1). `expect` is answered by the ingress itself (Node sends the
// 100 Continue), so it must not travel on.
const REQUEST_DROP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade', 'expect', 'http2-settings', CLIENT_ADDRESS_HEADER]);
const RESPONSE_DROP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** Names nominated as hop-by-hop by a Connection header (keep-alive/close excluded). */
function nominatedBy(raw: readonly string[]): Set<string> {
  const names = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() !== 'connection') continue;
    for (const token of raw[i + 1]!.toLowerCase().split(',')) {
      const name = token.trim();
      if (name !== '' && name !== 'close' && name !== 'keep-alive') names.add(name);
    }
  }
  return names;
}

/**
 * Request headers for the control plane: hop-by-hop ones removed (one connection per request, so
 * `Connection: close`), `Transfer-Encoding` kept (Node re-frames the body), the client's address
 * set, everything else (Host, X-Forwarded-*, cookies, tokens) unchanged.
 */
export function controlPlaneRequestHeaders(raw: readonly string[], clientAddress: string): string[] {
  const nominated = nominatedBy(raw);
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const lower = raw[i]!.toLowerCase();
    if (REQUEST_DROP.has(lower) || nominated.has(lower)) continue;
    out.push(raw[i]!, raw[i + 1]!);
  }
  out.push(CLIENT_ADDRESS_HEADER, clientAddress, 'connection', 'close');
  return out;
}

/**
 * Headers of an upgrade request (WebSocket) for the control plane: like a plain request, but
 * `Connection: Upgrade` and `Upgrade` stay, since the upgrade is what is asked for.
 */
export function controlPlaneUpgradeHeaders(raw: readonly string[], clientAddress: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === CLIENT_ADDRESS_HEADER) continue;
    out.push(raw[i]!, raw[i + 1]!);
  }
  out.push(CLIENT_ADDRESS_HEADER, clientAddress);
  return out;
}

/** Response headers for the client: hop-by-hop ones removed (the ingress frames and keeps its own connection). */
export function clientResponseHeaders(raw: readonly string[]): string[] {
  const nominated = nominatedBy(raw);
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const lower = raw[i]!.toLowerCase();
    if (RESPONSE_DROP.has(lower) || nominated.has(lower)) continue;
    out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

/** An HTTP/1.1 request head (request line, headers, blank line) for a raw upgrade hop. */
export function requestHead(method: string, url: string, headers: readonly string[]): string {
  let head = `${method} ${url} HTTP/1.1\r\n`;
  for (let i = 0; i < headers.length; i += 2) head += `${headers[i]}: ${headers[i + 1]}\r\n`;
  return `${head}\r\n`;
}

/** The client's IP as a plain address (IPv4-mapped IPv6 shown as IPv4). */
export function plainAddress(remote: string | undefined): string {
  if (remote === undefined) return 'unknown';
  return remote.startsWith('::ffff:') && remote.includes('.') ? remote.slice(7) : remote;
}
