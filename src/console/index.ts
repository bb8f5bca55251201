// The browser console feature: serving the built single-page app (web/) at "/".
export { consoleRoutes, type ConsoleRoutesOptions } from './console-routes.js';
export { CONSOLE_CSP, isConsoleRoute } from './console-csp.js';
export { ConsoleFiles, defaultConsoleDir } from './console-files.js';
