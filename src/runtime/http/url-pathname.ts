// The path of a Request without parsing its URL again: request.url is already a serialized absolute URL,
// so for http(s) the path is the text between the authority and the first `?` or `#`. A URL parse per
// request showed in the mutation profile; this is a string scan.

/** The pathname of a serialized absolute URL, as `new URL(url).pathname` would give it. */
export function urlPathname(url: string): string {
  const scheme = url.indexOf('://');
  // Only hierarchical URLs with an authority have this shape; anything else takes the full parser.
  if (scheme < 0 || !/^https?$/i.test(url.slice(0, scheme))) return new URL(url).pathname;
  const start = url.indexOf('/', scheme + 3);
  if (start < 0) return '/';
  let end = url.length;
  const query = url.indexOf('?', start);
  if (query >= 0) end = query;
  const hash = url.indexOf('#', start);
  if (hash >= 0 && hash < end) end = hash;
  return url.slice(start, end);
}
