// svc's name on the npm registry. The plain name `svc` belongs to an unrelated package, so svc is
// published under a scope; the command it installs is still `svc`.

/** The package name in package.json: what users install and what apps import (`@svc-dev/svc/runtime`). */
export const PACKAGE_NAME = '@svc-dev/svc';

/**
 * The name releases built before the rename import the platform by (`svc/runtime`, `svc/sqlite`).
 * Releases keep resolving it, so already-built artifacts run unchanged.
 */
export const LEGACY_IMPORT_NAME = 'svc';
