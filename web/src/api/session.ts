// The browser session as the console knows it: who is signed in and the CSRF token that every
// state-changing request must carry. One small observable store; pages subscribe with useSession.
import { useEffect, useState } from 'preact/hooks';
import type { User } from '../../../src/identity/contract.js';

export type SessionState = { status: 'loading' } | { status: 'signed-out'; expired: boolean } | { status: 'signed-in'; user: User; csrfToken: string };

let state: SessionState = { status: 'loading' };
const listeners = new Set<(s: SessionState) => void>();

/** The current session state. */
export function getSession(): SessionState {
  return state;
}

/** Replace the session state and notify subscribers. */
export function setSession(next: SessionState): void {
  state = next;
  for (const listener of listeners) listener(next);
}

/** The CSRF token of the signed-in session, if any. */
export function csrfToken(): string | undefined {
  return state.status === 'signed-in' ? state.csrfToken : undefined;
}

/** Subscribe a component to the session state. */
export function useSession(): SessionState {
  const [current, setCurrent] = useState(state);
  useEffect(() => {
    listeners.add(setCurrent);
    setCurrent(state);
    return () => void listeners.delete(setCurrent);
  }, []);
  return current;
}
