// Pages behind sign-in: while signed out, go to /sign-in and come back here afterwards.
import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { useSession } from '../api/session.js';
import { currentRoute, navigate } from '../router.js';
import { Loading } from './status.js';

/** Render children only for a signed-in user. */
export function RequireAuth({ children }: { children: ComponentChildren }) {
  const session = useSession();
  useEffect(() => {
    if (session.status === 'signed-out') {
      const expired = session.expired ? '&expired=1' : '';
      navigate(`/sign-in?next=${encodeURIComponent(currentRoute())}${expired}`, { replace: true });
    }
  }, [session]);
  if (session.status !== 'signed-in') return <Loading />;
  return <>{children}</>;
}
