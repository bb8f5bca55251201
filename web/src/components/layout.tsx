// The console frame: skip link, top bar with the main sections and the signed-in user, the isolation
// banner when apps here are not isolated as by default, and <main>.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { identityRoutes } from '../../../src/identity/contract.js';
import { api } from '../api/client.js';
import { setSession, useSession } from '../api/session.js';
import { Link, navigate, useLocation } from '../router.js';
import { IsolationBanner } from './isolation-banner.js';

const sections = [
  { href: '/', label: 'Projects', match: (p: string) => p === '/' || p.startsWith('/projects') || p === '/new-project' },
  { href: '/audit', label: 'Activity', match: (p: string) => p === '/audit' },
  { href: '/orgs', label: 'Organizations', match: (p: string) => p.startsWith('/orgs') },
  { href: '/tokens', label: 'Tokens', match: (p: string) => p === '/tokens' },
  { href: '/device-login', label: 'Device login', match: (p: string) => p === '/device-login' },
  { href: '/operations', label: 'Operations', match: (p: string) => p === '/operations' },
];

/** Set the document title for the current page. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · svc`;
  }, [title]);
}

async function signOut(): Promise<void> {
  try {
    await api('POST', identityRoutes.logout, { anonymous: true });
  } finally {
    setSession({ status: 'signed-out', expired: false });
    navigate('/sign-in');
  }
}

/** Page frame around every console page. */
export function Layout({ children }: { children: ComponentChildren }) {
  const session = useSession();
  const { path } = useLocation();
  const first = useRef(true);
  // After an in-app navigation, move focus to the new content (as a page load would reset it).
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [path]);
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <Link href="/" class="brand" aria-label="svc console home">
          svc
        </Link>
        {session.status === 'signed-in' ? (
          <>
            <nav aria-label="Main" class="mainnav">
              {sections.map((s) => (
                <Link key={s.href} href={s.href} aria-current={s.match(path) ? 'page' : undefined}>
                  {s.label}
                </Link>
              ))}
            </nav>
            <div class="user">
              <span class="muted" id="signed-in-as">
                {session.user.email}
              </span>
              <button type="button" class="secondary small" id="sign-out" onClick={() => void signOut()}>
                Sign out
              </button>
            </div>
          </>
        ) : null}
      </header>
      {session.status === 'signed-in' ? <IsolationBanner /> : null}
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
