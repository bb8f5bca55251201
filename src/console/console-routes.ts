// Serves the browser console (web/dist) at "/" with a strict CSP: index.html for every console path
// (history routing), files of the build by name, JSON 404 for unknown /api, /__svc, /_svc and asset paths.
// Only requests no feature route matched reach it, so every API and page route wins.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyReply } from 'fastify';
import type { FeatureContext } from '../core/feature-context.js';
import type { HttpApp } from '../core/http/create-http-app.js';
import { CONSOLE_CSP, isConsoleRoute, isPlatformHost } from './console-csp.js';
import { consoleCacheControl, defaultConsoleDir, isServablePath } from './console-files.js';
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

/** Send one console file (a path isServablePath accepted) with the console's CSP and cache policy. */
function sendConsoleFile(reply: FastifyReply, path: string) {
  void reply
    .header('content-security-policy', CONSOLE_CSP)
    .header('x-frame-options', 'DENY')
    .header('cache-control', consoleCacheControl(path))
    .header('vary', 'accept-encoding')
    .sendFile(path);
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
 * requests no route matched — index.html for console paths (or the not-built page), else the file of that name —
 * and leaves everything else (and app hosts no project serves) to the JSON 404 handler. Matched routes pay one property check.
 */
export function consoleFiles(options: ConsoleRoutesOptions = {}) {
  const dir = options.dir ?? defaultConsoleDir();
  const isFile = (path: string) =>
    stat(join(dir, path)).then(
      (s) => s.isFile(),
      () => false,
    );
  return async function register(app: HttpApp): Promise<void> {
    // reply.sendFile only (serve: false, no route): gzip copies from the build when accepted, ETag
    // and Last-Modified; the cache policy is set per file here, so the library sets none.
    await app.register(fastifyStatic, { root: dir, serve: false, preCompressed: true, cacheControl: false, index: false, dotfiles: 'deny' });
    app.addHook('onRequest', (request, reply, done) => {
      if (!request.is404 || (request.method !== 'GET' && request.method !== 'HEAD')) return done();
      if (!isPlatformHost(request.headers.host, options.publicUrl ?? null)) return done();
      let path = request.url.split('?')[0] ?? '/';
      try {
        path = decodeURIComponent(path);
      } catch {
        return done();
      }
      if (isConsoleRoute(path)) {
        void isFile('index.html').then((built) => {
          if (built) return sendConsoleFile(reply, '/index.html');
          void reply
            .status(503)
            .header('content-type', 'text/html; charset=utf-8')
            .header('content-security-policy', CONSOLE_CSP)
            .header('cache-control', 'no-cache')
            .send(NOT_BUILT);
        });
        return;
      }
      // Checked before sending: a file the library cannot find would be a plain-text 404 here, as
      // this hook already runs inside Fastify's not-found handling; done() gives the JSON 404.
      if (!isServablePath(path)) return done();
      void isFile(path).then((exists) => (exists ? sendConsoleFile(reply, path) : done()));
    });
  };
}
