// Shared states of every page: loading, empty, error (friendly text + code) and "not available
// on this server" for features whose routes this control plane does not have yet.
import type { ComponentChildren } from 'preact';
import type { ApiError } from '../api/client.js';

/** A polite loading line (announced to screen readers). */
export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p class="muted" role="status" aria-live="polite">
      {label}
    </p>
  );
}

/** An empty state: what is missing and what to do about it. */
export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <p class="empty-title">{title}</p>
      {children}
    </div>
  );
}

/** The feature's route is missing on this control plane (older server or feature not enabled). */
export function NotAvailable({ feature }: { feature: string }) {
  return (
    <div class="empty" data-state="not-available">
      <p class="empty-title">{feature} is not available on this server</p>
      <p class="muted">This control plane does not offer {feature.toLowerCase()} yet. Upgrade svc to use it here.</p>
    </div>
  );
}

/** An error from the API: friendly message, the stable code, and an optional retry. */
export function ErrorBox({ error, retry, feature }: { error: ApiError | Error; retry?: () => void; feature?: string }) {
  const apiError = error as ApiError;
  if (feature && apiError.routeMissing) return <NotAvailable feature={feature} />;
  return (
    <div class="error-box" role="alert">
      <p>
        {error.message} {apiError.code ? <code class="code">{apiError.code}</code> : null}
      </p>
      {retry ? (
        <button type="button" class="secondary" onClick={retry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

/** A status pill (release status, health). */
export function Pill({ tone, children }: { tone: 'ok' | 'bad' | 'warn' | 'idle'; children: ComponentChildren }) {
  return <span class={`pill pill-${tone}`}>{children}</span>;
}

/** The result line of an action. Rendered (hidden) while empty so screen readers already watch the
 * live region when the message arrives. */
export function StatusNotice({ message, id }: { message: string; id?: string }) {
  return (
    <p role="status" id={id} class={message ? 'notice' : 'visually-hidden'}>
      {message}
    </p>
  );
}
