import { isIP } from 'node:net';

// A host whose last label is a number is parsed as IPv4 by browsers (WHATWG URL "ends in a number"):
// `127.1`, `0x7f.0.0.1` and `2130706433` all reach loopback, so they count as addresses too.
const NUMERIC_LAST_LABEL = /(?:^|\.)(?:0x[0-9a-f]*|\d+)\.?$/i;

/**
 * Whether a host is an IP address literal: IPv4 (any form a browser accepts), IPv6 bare or in
 * brackets (optionally with a port, as in a Host header). Pure.
 */
export function isIpLiteral(value: string): boolean {
  let host = value.trim();
  if (host.startsWith('[')) {
    const close = host.indexOf(']');
    if (close === -1) return false;
    const rest = host.slice(close + 1);
    if (rest !== '' && !/^:\d{1,5}$/.test(rest)) return false;
    host = host.slice(1, close);
    // Zone ids (fe80::1%eth0) are not accepted by isIP; they are still addresses.
    const zone = host.indexOf('%');
    return isIP(zone === -1 ? host : host.slice(0, zone)) === 6;
  }
  if (isIP(host) !== 0) return true;
  const colon = host.lastIndexOf(':');
  if (colon !== -1 && host.indexOf(':') === colon && /^\d{1,5}$/.test(host.slice(colon + 1))) host = host.slice(0, colon);
  return NUMERIC_LAST_LABEL.test(host);
}
