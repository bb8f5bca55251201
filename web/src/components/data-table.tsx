// The console's one table markup: a horizontally scrolling wrapper, column headings, and an
// unlabelled (screen-reader only) heading for a trailing column of row buttons. The wrapper is a
// named, focusable region so a keyboard can scroll a table wider than a phone screen.
import type { ComponentChildren } from 'preact';

export interface DataTableProps {
  /** Stable hook for tests and automation. */
  id?: string;
  /** Read by screen readers only. */
  caption?: string;
  columns: readonly string[];
  /** Adds the last column, headed "Actions" for screen readers, for each row's buttons. */
  actions?: boolean;
  /** The rows (<tr>). */
  children: ComponentChildren;
}

/** <table class="table"> with its headings; the caller renders the rows. */
export function DataTable({ id, caption, columns, actions = false, children }: DataTableProps) {
  return (
    <div class="table-wrap" role="region" tabIndex={0} aria-label={caption ?? `Table: ${columns.join(', ')}`}>
      <table class="table" id={id}>
        {caption ? <caption class="visually-hidden">{caption}</caption> : null}
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
            {actions ? (
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
