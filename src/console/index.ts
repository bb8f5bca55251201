// The browser console feature: serving the built single-page app (web/) at "/".
export { consoleFiles, consoleRoutes, type ConsoleRoutesOptions } from './console-routes.js';
export { CONSOLE_CSP, hostName, isAppHost, isConsoleRoute, isPlatformHost } from './console-csp.js';
export { consoleCacheControl, defaultConsoleDir, isServablePath } from './console-files.js';
export { sessionProbeRoute } from './session-probe-route.js';
export { consoleApiRoutes, consoleSessionResponseSchema, type ConsoleSessionResponse } from './contract.js';
