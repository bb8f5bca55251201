// Run one user action (a form submit, a button): busy flag, error to show, no double submits.
import { useState } from 'preact/hooks';
import { ApiError } from '../api/client.js';

export interface Action {
  busy: boolean;
  error: Error | undefined;
  run(work: () => Promise<void>): Promise<void>;
  /** A form's onSubmit: keep the browser from loading a page, then `run(work)`. */
  submit(work: () => Promise<void>): (event: Event) => void;
  clear(): void;
}

/** State for a user-triggered request. */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | undefined>();
  const run = async (work: () => Promise<void>) => {
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
  };
  return {
    busy,
    error,
    clear: () => setError(undefined),
    run,
    submit: (work) => (event) => {
      event.preventDefault();
      void run(work);
    },
  };
}
