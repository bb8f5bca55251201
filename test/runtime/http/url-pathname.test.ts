import { describe, expect, it } from 'vitest';
import { urlPathname } from '../../../src/runtime/http/url-pathname.js';

describe('urlPathname', () => {
  // Every case must agree with the full parser, which it replaces on the request path.
  const cases = [
    'http://app.localhost/__svc/mutation/tasks/add',
    'https://app.example.com:8443/__svc/query/a%20b?x=1#frag',
    'http://user:p%40ss@host/__svc/manifest?next=/a/b',
    'http://host',
    'http://host?q=/x',
    'http://host#/y',
    'http://[::1]:3000/__svc/live/tasks/latest?args=%7B%7D',
    'HTTP://HOST/Path/With/Case',
    'http://host/a?b#c?d',
    'http://host/a#b?c',
  ];
  for (const url of cases) {
    it(`matches new URL().pathname for ${url}`, () => {
      const serialized = new URL(url).href; // what Request.url holds
      expect(urlPathname(serialized)).toBe(new URL(serialized).pathname);
    });
  }

  it('falls back to the full parser for URLs without an authority', () => {
    expect(urlPathname('data:text/plain,hello')).toBe(new URL('data:text/plain,hello').pathname);
    expect(urlPathname('file:///tmp/x')).toBe('/tmp/x');
  });

  it('reads the path of a Request as the handler sees it', () => {
    expect(urlPathname(new Request('http://app.localhost/__svc/../__svc/./query/x?y=1').url)).toBe('/__svc/query/x');
  });
});
