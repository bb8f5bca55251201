// Operator settings of previews, from the platform's SVC_* environment (docs/previews.md "Limits").
import { z } from 'zod';
import { parseEnvSettings } from '../core/env-settings.js';

export interface PreviewSettings {
  /** Live previews one project may have. SVC_PREVIEW_LIMIT, default 10. */
  limit: number;
  /** A preview with no request for this long is stopped; 0 never stops one. SVC_PREVIEW_IDLE_MS, default 30 minutes. */
  idleStopMs: number;
}

const intSetting = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const settingsSchema = z.object({
  SVC_PREVIEW_LIMIT: intSetting(1, 1000).default(10),
  SVC_PREVIEW_IDLE_MS: intSetting(0, 30 * 24 * 3_600_000).default(30 * 60_000),
});

/** Read and validate the preview settings. */
export function readPreviewSettings(env: Readonly<Record<string, string | undefined>>): PreviewSettings {
  const s = parseEnvSettings(settingsSchema, env);
  return { limit: s.SVC_PREVIEW_LIMIT, idleStopMs: s.SVC_PREVIEW_IDLE_MS };
}
