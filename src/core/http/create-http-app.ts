import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import fastifyCookie from '@fastify/cookie';
import fastifySwagger from '@fastify/swagger';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Logger } from '../logger.js';
import { SvcError } from '../errors.js';
import { connectionHeaderFor } from './close-unread-body.js';
import { toErrorResponse } from './error-response.js';
import { OneLineRequestLog } from './request-log.js';
import { PLATFORM_CSRF_HEADER, PLATFORM_SECURE_SESSION_COOKIE, PLATFORM_SESSION_COOKIE } from '../platform-credentials-names.js';

/** The Fastify instance type every feature's routes plugin receives (zod type provider). */
export type HttpApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, ZodTypeProvider>;

export const OPENAPI_PATH = '/api/openapi.json';

/** One registered route as seen by the onRoute hook. */
export interface RegisteredRoute {
  method: string;
  url: string;
  hasSchema: boolean;
}

/** Routes registered on an app built by createHttpApp. */
export function registeredRoutes(app: FastifyInstance | HttpApp): RegisteredRoute[] {
  return (app as unknown as { svcRoutes: RegisteredRoute[] }).svcRoutes;
}

export interface HttpAppOptions {
  logger: Logger;
  bodyLimitBytes: number;
  trustProxy: boolean;
  version: string;
  /**
   * Called first for every request that reaches the listening server (not inject()):
   * returns true when it took the request (app-host proxying), false to let Fastify route it.
   */
  intercept?: (req: IncomingMessage, res: ServerResponse) => boolean;
}

/**
 * A Fastify app with svc's HTTP conventions: zod validation and serialization, OpenAPI generated
 * from the route schemas at /api/openapi.json, JSON-only bodies with a size limit, the
 * `{ error: { code, message } }` error shape with internal failures redacted, security headers, and
 * cookies (@fastify/cookie: `request.cookies`, `reply.setCookie`).
 * It never listens; the caller registers feature routes and decides whether to listen.
 */
export async function createHttpApp(options: HttpAppOptions): Promise<HttpApp> {
  const app = Fastify({
    loggerInstance: options.logger,
    bodyLimit: options.bodyLimitBytes,
    trustProxy: options.trustProxy,
    return503OnClosing: true,
    logController: new OneLineRequestLog(options.logger.child({}, { redact: [] })),
    // Our own node:http server so the ingress runs before Fastify routing and body parsing.
    ...(options.intercept ? { serverFactory: interceptingServerFactory(options.intercept) } : {}),
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
  }).withTypeProvider<ZodTypeProvider>();
  // Every registered route, so tests can prove the OpenAPI document covers all of them.
  const registered: RegisteredRoute[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) registered.push({ method: String(method), url: route.url, hasSchema: route.schema !== undefined });
  });
  app.decorate('svcRoutes', registered);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  // JSON only: no text/plain parser, so simple cross-site form posts are rejected with 415.
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' || body === undefined) return done(null, undefined);
    jsonParser(request, body as string, done);
  });

  app.setErrorHandler((error, request, reply) => {
    const response = toErrorResponse(error);
    if (response.internal) request.log.error({ err: error }, 'request failed');
    else request.log.info({ code: response.body.error.code }, 'request rejected');
    void reply.status(response.status).header('content-type', 'application/json; charset=utf-8').send(response.body);
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send(new SvcError('SVC_NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`).toBody());
  });
  // Callback style, not async: an async hook costs a promise and a microtask on every response.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    if (connectionHeaderFor(reply.statusCode, request.raw) === 'close') reply.header('connection', 'close');
    done(null, payload);
  });

  // Cookie header parsed into request.cookies (first occurrence of a name wins), reply.setCookie.
  await app.register(fastifyCookie);
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'svc control plane', version: options.version, description: 'Errors are `{ "error": { "code": "SVC_...", "message": "..." } }`.' },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'Access token `svc_...`' },
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: PLATFORM_SESSION_COOKIE,
            description: `Browser session (named ${PLATFORM_SECURE_SESSION_COOKIE} when the platform is served over https); state-changing requests also need the ${PLATFORM_CSRF_HEADER} header and a same-origin Origin.`,
          },
        },
      },
    },
    transform: jsonSchemaTransform,
  });
  app.get(OPENAPI_PATH, {
    schema: { summary: 'OpenAPI description of every route', tags: ['meta'], response: { 200: z.record(z.string(), z.unknown()) } },
    handler: async () => app.swagger() as unknown as Record<string, unknown>,
  });
  return app as unknown as HttpApp;
}

type Security = { [scheme: string]: string[] }[];
/** OpenAPI security of routes that accept a bearer token or a browser session. */
export const bearerOrSession: Security = [{ bearer: [] }, { session: [] }];
/** OpenAPI security of browser-session-only routes. */
export const sessionOnly: Security = [{ session: [] }];
/** OpenAPI security of bearer-only routes. */
export const bearerOnly: Security = [{ bearer: [] }];

/** A node:http server (with Fastify's timeouts) that offers each request to `intercept` first. */
function interceptingServerFactory(intercept: (req: IncomingMessage, res: ServerResponse) => boolean) {
  return (
    handler: (req: IncomingMessage, res: ServerResponse) => void,
    opts: { keepAliveTimeout?: number; requestTimeout?: number; connectionTimeout?: number },
  ) => {
    const server = createServer((req, res) => {
      if (!intercept(req, res)) handler(req, res);
    });
    if (opts.keepAliveTimeout !== undefined) server.keepAliveTimeout = opts.keepAliveTimeout;
    if (opts.requestTimeout !== undefined) server.requestTimeout = opts.requestTimeout;
    if (opts.connectionTimeout) server.setTimeout(opts.connectionTimeout);
    return server;
  };
}
