// A project's app URL when there is no request to take the origin from (GitHub links, previews):
// SVC_PUBLIC_URL's scheme and port, else the listen address.
import type { PlatformConfig } from '../core/config.js';
import { projectUrl } from './project-store.js';

/** The platform origin links point at: SVC_PUBLIC_URL, else the listen address (null when unknown). */
export function configuredOrigin(config: Pick<PlatformConfig, 'publicUrl' | 'listen'>): string | null {
  if (config.publicUrl) return config.publicUrl;
  const { host, port } = config.listen;
  if (!port) return null;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** The app URL of a slug, or null without a known origin. */
export function appUrlOf(config: Pick<PlatformConfig, 'publicUrl' | 'listen' | 'appDomain'>, slug: string): string | null {
  const origin = configuredOrigin(config);
  return origin ? projectUrl(origin, slug, config.appDomain) : null;
}
