import { describe, expect, it } from 'vitest';
import { clientAddress, downstreamResponseHeaders, upstreamRequestHeaders } from '../../src/ingress/forward-headers.js';

const pairs = (flat: string[]) => Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i], flat[2 * i + 1]]);

describe('upstreamRequestHeaders', () => {
  const raw = [
    'Host',
    'app.localhost:7070',
    'Connection',
    'keep-alive, X-Secret',
    'X-Secret',
    's',
    'Keep-Alive',
    'timeout=5',
    'Transfer-Encoding',
    'chunked',
    'TE',
    'trailers',
    'Upgrade',
    'h2c',
    'Proxy-Authorization',
    'Basic x',
    'Expect',
    '100-continue',
    'Accept',
    'text/html',
    'X-Forwarded-For',
    '6.6.6.6',
    'Forwarded',
    'for=6.6.6.6',
    'X-Forwarded-Proto',
    'https',
    'X-Forwarded-Host',
    'evil.example',
  ];

  it('drops hop-by-hop and Connection-named headers and keeps the rest (Host included)', () => {
    const { headers, hasBody } = upstreamRequestHeaders(raw, '10.0.0.5', 'http', false);
    expect(hasBody).toBe(true);
    expect(pairs(headers)).toEqual([
      ['host', 'app.localhost:7070'],
      ['accept', 'text/html'],
      ['x-forwarded-for', '10.0.0.5'],
      ['x-forwarded-proto', 'http'],
      ['x-forwarded-host', 'app.localhost:7070'],
      ['forwarded', 'for=10.0.0.5;host="app.localhost:7070";proto=http'],
    ]);
  });

  it('appends to incoming forwarding headers only behind a trusted proxy', () => {
    const { headers } = upstreamRequestHeaders(raw, '::1', 'https', true);
    const map = Object.fromEntries(pairs(headers));
    expect(map['x-forwarded-for']).toBe('6.6.6.6, ::1');
    expect(map['x-forwarded-proto']).toBe('https');
    expect(map['x-forwarded-host']).toBe('evil.example');
    expect(map.forwarded).toBe('for=6.6.6.6, for="[::1]";host="app.localhost:7070";proto=https');
  });

  it('knows when a request has a body', () => {
    expect(upstreamRequestHeaders(['Host', 'a.localhost'], '1.2.3.4', 'http', false).hasBody).toBe(false);
    expect(upstreamRequestHeaders(['Host', 'a.localhost', 'Content-Length', '0'], '1.2.3.4', 'http', false).hasBody).toBe(false);
    expect(upstreamRequestHeaders(['Host', 'a.localhost', 'Content-Length', '12'], '1.2.3.4', 'http', false).hasBody).toBe(true);
  });

  it('shows IPv4-mapped client addresses as IPv4', () => {
    expect(clientAddress('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(clientAddress('::1')).toBe('::1');
    expect(clientAddress(undefined)).toBe('unknown');
  });
});

describe('downstreamResponseHeaders', () => {
  it('drops hop-by-hop headers and repeats multi-value ones', () => {
    const out = downstreamResponseHeaders({
      'content-type': 'text/plain',
      'set-cookie': ['a=1', 'b=2'],
      connection: 'keep-alive, x-hop',
      'x-hop': '1',
      'keep-alive': 'timeout=5',
      'transfer-encoding': 'chunked',
      'content-length': '3',
    });
    expect(pairs(out)).toEqual([
      ['content-type', 'text/plain'],
      ['set-cookie', 'a=1'],
      ['set-cookie', 'b=2'],
      ['content-length', '3'],
    ]);
  });
});
