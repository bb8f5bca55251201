import { SvcError } from '../../core/errors.js';
import type { AuditExportDestination } from './audit-exporter.js';

/**
 * A destination that POSTs `{ entries }` as JSON to `url`; any 2xx acknowledges the batch.
 * Redirects are refused (the entries must reach the configured receiver or fail).
 */
export function httpAuditDestination(url: string): AuditExportDestination {
  const target = new URL(url);
  if (target.protocol !== 'https:' && !['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname)) {
    throw new SvcError('SVC_AUDIT_EXPORT_CONFIG', 'SVC_AUDIT_EXPORT_URL must use https (http only for loopback).');
  }
  return async (entries, signal) => {
    const response = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ entries }), redirect: 'error', signal });
    await response.body?.cancel();
    if (!response.ok) throw new Error(`audit export destination answered ${response.status}`);
  };
}
