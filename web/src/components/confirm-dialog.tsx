// A modal that guards destructive actions: it says what will be lost, shows the exact phrase,
// and enables the action only when the phrase is typed exactly (and, when asked, acknowledged).
// Native <dialog>.showModal() gives focus trapping and Escape-to-close for free.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/client.js';
import { ErrorBox } from './status.js';

export interface ConfirmDialogProps {
  title: string;
  /** What happens and what is lost. */
  children: ComponentChildren;
  /** The exact phrase to type; omit for a plain confirmation. */
  phrase?: string;
  /** Text of a checkbox that must be ticked (e.g. data-loss acknowledgement). */
  acknowledge?: string;
  confirmLabel: string;
  danger?: boolean;
  onConfirm(): Promise<void>;
  onClose(): void;
}

/** Confirmation dialog; open while rendered. */
export function ConfirmDialog(props: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const [typed, setTyped] = useState('');
  const [acknowledged, setAcknowledged] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | undefined>();

  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);

  const ready = (props.phrase === undefined || typed === props.phrase) && (props.acknowledge === undefined || acknowledged) && !busy;

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!ready) return;
    setBusy(true);
    setError(undefined);
    try {
      await props.onConfirm();
      props.onClose();
    } catch (caught) {
      setError(caught instanceof Error ? caught : new ApiError(0, 'SVC_CONSOLE_ERROR', String(caught)));
      setBusy(false);
    }
  };

  return (
    <dialog ref={ref} class="dialog" aria-labelledby="confirm-title" onClose={props.onClose} onCancel={props.onClose}>
      <form onSubmit={submit}>
        <h2 id="confirm-title">{props.title}</h2>
        <div class="dialog-body">{props.children}</div>
        {props.phrase !== undefined ? (
          <>
            <label for="confirm-phrase">
              Type{' '}
              <code class="phrase" id="confirm-expected">
                {props.phrase}
              </code>{' '}
              to confirm
            </label>
            <input
              id="confirm-phrase"
              autoComplete="off"
              spellcheck={false}
              value={typed}
              onInput={(e) => setTyped((e.target as HTMLInputElement).value)}
              autoFocus
            />
          </>
        ) : null}
        {props.acknowledge !== undefined ? (
          <label class="check">
            <input id="confirm-acknowledge" type="checkbox" checked={acknowledged} onChange={(e) => setAcknowledged((e.target as HTMLInputElement).checked)} />{' '}
            {props.acknowledge}
          </label>
        ) : null}
        {error ? <ErrorBox error={error} /> : null}
        <div class="actions">
          <button type="button" class="secondary" onClick={props.onClose} disabled={busy}>
            Cancel
          </button>
          <button id="confirm-submit" type="submit" class={props.danger ? 'danger' : ''} disabled={!ready}>
            {busy ? 'Working…' : props.confirmLabel}
          </button>
        </div>
      </form>
    </dialog>
  );
}
