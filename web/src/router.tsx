// A tiny history router: the location is one observable value, <Link> and navigate() push
// same-origin paths, and matchRoute() turns "/projects/:slug/releases" patterns into params.
import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export interface Location {
  path: string;
  query: URLSearchParams;
}

const listeners = new Set<() => void>();

function current(): Location {
  return { path: window.location.pathname, query: new URLSearchParams(window.location.search) };
}

/** The path plus query string, e.g. to come back here after signing in. */
export function currentRoute(): string {
  return window.location.pathname + window.location.search;
}

/** Go to a same-origin path; anything else is refused (no open redirects). */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (!isLocalPath(to)) to = '/';
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  window.scrollTo(0, 0);
  for (const listener of listeners) listener();
}

/** Whether `to` is a path on this origin (not //host, not a scheme). Pure. */
export function isLocalPath(to: string): boolean {
  return to.startsWith('/') && !to.startsWith('//') && !to.includes('\\');
}

window.addEventListener('popstate', () => {
  for (const listener of listeners) listener();
});

/** Subscribe a component to the location. */
export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const update = () => setLocation(current());
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return location;
}

/** Params of `pattern` ("/projects/:slug") matched against `path`, or null. Pure. */
export function matchRoute(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/').filter(Boolean);
  const have = path.split('/').filter(Boolean);
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const h = have[i]!;
    if (w.startsWith(':')) {
      try {
        params[w.slice(1)] = decodeURIComponent(h);
      } catch {
        return null;
      }
    } else if (w !== h) return null;
  }
  return params;
}

type AnchorProps = JSX.HTMLAttributes<HTMLAnchorElement> & { href: string; children?: ComponentChildren };

/** An <a> that navigates without a page load (modifier clicks still open new tabs). */
export function Link({ href, children, ...rest }: AnchorProps) {
  const onClick = (event: MouseEvent) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}
