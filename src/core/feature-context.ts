import type { Clock } from './clock.js';
import type { PlatformConfig } from './config.js';
import type { ControlDb } from './control-db.js';
import type { IdGenerator } from './ids.js';
import type { Logger } from './logger.js';

/** The effects every feature receives from the composition root (src/platform.ts). */
export interface FeatureContext {
  readonly db: ControlDb;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly config: PlatformConfig;
  readonly logger: Logger;
}

/** ISO 8601 text of a millisecond timestamp (the wire format of every time field). */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
