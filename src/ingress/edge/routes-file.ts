// `<data>/run/routes.json`: the ingress process's copy of the route table, so that after its own
// restart it routes apps before any control plane connects. Written atomically (temp, fsync, rename).
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { atomicWriteFileSync } from '../../core/atomic-write.js';
import { routeSettingsSchema, routeStateSchema, type RouteSettings, type RouteState } from '../route-state.js';

const fileSchema = z.object({ version: z.literal(1), settings: routeSettingsSchema, routes: z.array(routeStateSchema) });

export interface SavedRoutes {
  settings: RouteSettings;
  routes: RouteState[];
}

/** The saved table, or null when there is none or it cannot be read (then nothing is routed directly). */
export function loadRoutes(path: string): SavedRoutes | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  try {
    const parsed = fileSchema.safeParse(JSON.parse(text));
    return parsed.success ? { settings: parsed.data.settings, routes: parsed.data.routes } : null;
  } catch {
    return null;
  }
}

export function saveRoutes(path: string, saved: SavedRoutes): void {
  atomicWriteFileSync(path, `${JSON.stringify({ version: 1, ...saved })}\n`, { mode: 0o600 });
}
