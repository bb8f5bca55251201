// Response headers of the inventory page: never cached, never framed, no referrer, nothing executes.
import { INVENTORY_CSP } from './render-inventory.js';

/** Headers on every inventory response (the page and its error pages). */
export const INVENTORY_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store, max-age=0',
  pragma: 'no-cache',
  'content-security-policy': INVENTORY_CSP,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
  vary: 'Cookie',
};
