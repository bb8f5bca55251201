// Serves the browser console (web/dist) at "/" with a strict CSP: exact files first, index.html for
// any other console path (history routing), JSON 404 for unknown /api, /__svc, /_svc and asset paths.
// Only requests no feature route matched reach it, so every API and page route wins.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FeatureContext } from '../core/feature-context.js';
import type { HttpApp } from '../core/http/create-http-app.js';
import { CONSOLE_CSP, isConsoleRoute, isPlatformHost } from './console-csp.js';
import { ConsoleFiles, defaultConsoleDir, type ConsoleFile } from './console-files.js';
import { sessionProbeRoute } from './session-probe-route.js';

export interface ConsoleRoutesOptions {
  /** Directory of the built console; default web/dist of this package. */
  dir?: string;
  /** Apps live at `<slug>.<appDomain>`; such hosts never get the console. Default: none. */
  appDomain?: string;
  publicUrl?: string | null;
}

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>svc console not built</title></head>
<body><h1>The svc console is not built</h1>
<p>Run <code>npm run build:web</code> in the svc checkout, then reload this page.
The API (<code>/api</code>) and the sign-in pages (<a href="/login">/login</a>, <a href="/device">/device</a>) work without it.</p>
</body></html>
`;

function send(request: FastifyRequest, reply: FastifyReply, file: ConsoleFile) {
  const gzip = file.gzip && /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
  void reply
    .header('content-type', file.contentType)
    .header('content-security-policy', CONSOLE_CSP)
    .header('x-frame-options', 'DENY')
    .header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
    .header('vary', 'accept-encoding');
  if (gzip) void reply.header('content-encoding', 'gzip');
  return reply.send(gzip ? file.gzip : file.body);
}

/** The console plugin: the session probe route and the console's files (see consoleFiles). */
export function consoleRoutes(ctx: FeatureContext, options: ConsoleRoutesOptions = {}) {
  const files = consoleFiles({ appDomain: ctx.config.appDomain, publicUrl: ctx.config.publicUrl, ...options });
  return async function register(app: HttpApp): Promise<void> {
    await sessionProbeRoute(ctx)(app);
    await files(app);
  };
}

/**
 * An onRequest hook (no route, so the OpenAPI document lists only the API) that answers GET/HEAD
 * requests no route matched — exact file, index.html for console paths, or the not-built page —
 * and leaves everything else (and app hosts no project serves) to the JSON 404 handler. Matched routes pay one property check.
 */
export function consoleFiles(options: ConsoleRoutesOptions = {}) {
  const files = new ConsoleFiles(options.dir ?? defaultConsoleDir());
  return async function register(app: HttpApp): Promise<void> {
    app.addHook('onRequest', (request, reply, done) => {
      if (!request.is404 || (request.method !== 'GET' && request.method !== 'HEAD')) return done();
      if (!isPlatformHost(request.headers.host, options.publicUrl ?? null)) return done();
      let path = request.url.split('?')[0] ?? '/';
      try {
        path = decodeURIComponent(path);
      } catch {
        return done();
      }
      const built = files.current();
      const exact = built?.get(path);
      if (exact) return void send(request, reply, exact);
      if (!isConsoleRoute(path)) return done();
      const index = built?.get('/index.html');
      if (index) return void send(request, reply, index);
      void reply.status(503).header('content-type', 'text/html; charset=utf-8').header('content-security-policy', CONSOLE_CSP).header('cache-control', 'no-cache').send(NOT_BUILT);
    });
  };
}
