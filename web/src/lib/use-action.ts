// Run one user action (a form submit, a button): busy flag, error to show, no double submits.
import { useState } from 'preact/hooks';
import { ApiError } from '../api/client.js';

export interface Action {
  busy: boolean;
  error: Error | undefined;
  run(work: () => Promise<void>): Promise<void>;
  clear(): void;
}

/** State for a user-triggered request. */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | undefined>();
  return {
    busy,
    error,
    clear: () => setError(undefined),
    async run(work) {
      if (busy) return;
      setBusy(true);
      setError(undefined);
      try {
        await work();
      } catch (caught) {
        setError(caught instanceof Error ? caught : new ApiError(0, 'SVC_CONSOLE_ERROR', String(caught)));
      } finally {
        setBusy(false);
      }
    },
  };
}
