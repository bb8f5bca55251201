// The HTTP audit export destination, through svc's one HTTP client.
import { SvcError } from '../../core/errors.js';
import { defaultHttpClient, type HttpClient } from '../../core/http/http-client.js';
import type { AuditExportDestination } from './audit-exporter.js';

/**
 * A destination that POSTs `{ entries }` as JSON to `url`; any 2xx acknowledges the batch.
 * Redirects are refused, never followed (the entries must reach the configured receiver or fail).
 */
export function httpAuditDestination(url: string, http: HttpClient = defaultHttpClient): AuditExportDestination {
  const target = new URL(url);
  if (target.protocol !== 'https:' && !['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname)) {
    throw new SvcError('SVC_AUDIT_EXPORT_CONFIG', 'SVC_AUDIT_EXPORT_URL must use https (http only for loopback).');
  }
  return async (entries, signal) => {
    // The exporter's signal carries the delivery timeout.
    const answer = await http.open({
      method: 'POST',
      url: target,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ entries }),
      signal,
      timeoutMs: null,
    });
    answer.discard();
    if (answer.status < 200 || answer.status > 299) throw new Error(`audit export destination answered ${answer.status}`);
  };
}
