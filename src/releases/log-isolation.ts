// The one start-up log line about app isolation: info when apps are isolated as by default, warn when
// isolation is weaker (unsandboxed, shared network), error when apps cannot start at all.
import type { Logger } from '../core/logger.js';
import { isolationSummary, type Isolation } from './isolation-contract.js';

/** Log `isolation` once at the level it deserves. */
export function logIsolation(logger: Logger, isolation: Isolation): void {
  const fields = { isolation };
  if (!isolation.available) logger.error({ ...fields, code: isolation.problem?.code }, isolationSummary(isolation));
  else if (isolation.warning) logger.warn(fields, isolationSummary(isolation));
  else logger.info(fields, isolationSummary(isolation));
}
