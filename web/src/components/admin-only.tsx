// The state of a page that only the platform administrator may open (routes answer 403
// SVC_PLATFORM_ADMIN_REQUIRED): says who may, instead of showing a raw error.
import type { ApiError } from '../api/client.js';

/** The error code of `/api/admin/*` routes for anyone but the platform administrator. */
export const PLATFORM_ADMIN_REQUIRED = 'SVC_PLATFORM_ADMIN_REQUIRED';

/** Whether an API error means "you are not the platform administrator". Pure. */
export function isAdminRequired(error: ApiError | Error | undefined): boolean {
  return (error as ApiError | undefined)?.code === PLATFORM_ADMIN_REQUIRED;
}

/** "Platform admin only": what the page is, who may open it, and the stable code. */
export function AdminOnly({ feature }: { feature: string }) {
  return (
    <div class="empty" data-state="admin-only" role="status">
      <p class="empty-title">Platform admin only</p>
      <p class="muted">
        {feature} is shown only to the platform administrator: the first account registered on this server. Ask them to check it, or sign in as that account.{' '}
        <code class="code">{PLATFORM_ADMIN_REQUIRED}</code>
      </p>
    </div>
  );
}
