// The browser console feature: serving the built single-page app (web/) at "/".
export { consoleFiles, consoleRoutes } from './console-routes.js';
export { CONSOLE_CSP, isAppHost, isConsoleRoute, isPlatformHost } from './console-csp.js';
export { defaultConsoleDir, isServablePath } from './console-files.js';
export { consoleApiRoutes } from './contract.js';
