// The console's "remove this" dialog (remove a member, revoke a token, delete a secret or backup,
// remove a domain, unlink a repository): confirm, DELETE the one resource, then let the page refresh.
import type { ComponentChildren } from 'preact';
import type { z } from 'zod';
import { api } from '../api/client.js';
import { ConfirmDialog } from './confirm-dialog.js';

export interface ConfirmDeleteProps<T> {
  title: string;
  confirmLabel: string;
  /** The resource to DELETE. */
  path: string;
  /** Checks the answer; without it the answer is not read. */
  schema?: z.ZodType<T>;
  /** After the DELETE succeeded (the dialog closes itself next). */
  onDeleted(result: T): void;
  onClose(): void;
  /** What is lost. */
  children: ComponentChildren;
}

/** A danger confirmation whose action is one DELETE request; open while rendered. */
export function ConfirmDelete<T>({ title, confirmLabel, path, schema, onDeleted, onClose, children }: ConfirmDeleteProps<T>) {
  return (
    <ConfirmDialog
      title={title}
      confirmLabel={confirmLabel}
      danger
      onClose={onClose}
      onConfirm={async () => onDeleted(await api('DELETE', path, schema ? { schema } : {}))}
    >
      {children}
    </ConfirmDialog>
  );
}
