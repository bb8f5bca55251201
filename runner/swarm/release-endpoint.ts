// The control plane's side of a swarm task: an HTTP server (not listening; the driver listens on an
// address tasks reach) that hands a task its release artifact, a job its description and input, and
// takes a job's output and result. No registry and no shared filesystem: every byte a task needs
// travels here, behind a credential that names exactly what it may fetch or report.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import Router from 'find-my-way';
import type { Clock } from '../../src/core/clock.js';
import { SvcError } from '../../src/core/errors.js';
import { ARTIFACT_MEDIA_TYPE } from '../../src/artifacts/index.js';
import { endpointError, sendError, sendFile, sendJson } from './endpoint-replies.js';
import { receiveUpload } from './receive-upload.js';
import { bearerToken, verifyCredential, type CredentialClaims } from './release-credentials.js';
import { endpointIdPattern, parseJobResult, SHA256_HEADER, type JobDescription, type JobResult } from './swarm-job-protocol.js';

type MaybePromise<T> = T | Promise<T>;

/** The jobs the driver runs as swarm tasks, by job id (a finished or unknown job answers null). */
export interface ReleaseEndpointJobs {
  /** The job as its task sees it (toTaskJob), or null. */
  describe(jobId: string): MaybePromise<JobDescription | null>;
  /** The file a job reads (restore-snapshot: the snapshot), or null when it has none. */
  inputFor(jobId: string): MaybePromise<string | null>;
  /** Where the endpoint writes the file a job uploads (snapshot: the snapshot path), or null when it has none. */
  outputFor(jobId: string): MaybePromise<string | null>;
  /** The job's validated result; throw an SvcError (e.g. SVC_CONFLICT) to refuse it. */
  acceptResult(jobId: string, result: JobResult): MaybePromise<void>;
}

export interface ReleaseEndpointLimits {
  /** Bytes of one job output (default 16 GiB). */
  maxOutputBytes: number;
  /** Bytes of a result body (default 1 MiB). */
  maxResultBytes: number;
}

/** One line per answered request; never a credential. */
export interface ReleaseEndpointLogLine {
  method: string;
  route: 'artifact' | 'job' | 'input' | 'output' | 'result' | 'unknown';
  id: string | null;
  status: number;
  code?: string;
  /** The internal error behind an SVC_INTERNAL answer (never sent to the task). */
  cause?: string;
}

export interface ReleaseEndpointDeps {
  /** HMAC key of the release credentials (at least 32 bytes). */
  credentialKey: Uint8Array;
  clock: Clock;
  /** True for credentials of generations or jobs the driver replaced, removed or finished. */
  isRevoked(claims: CredentialClaims): boolean;
  /** The original svc-deploy/1 bytes of a release and their SHA-256 (lowercase hex), or null. */
  /** `projectId` comes from the verified credential: a restarted control plane finds releases it has not staged again. */
  artifactFor(releaseId: string, projectId: string): MaybePromise<{ path: string; sha256: string } | null>;
  jobs: ReleaseEndpointJobs;
  limits?: Partial<ReleaseEndpointLimits>;
  log?: (line: ReleaseEndpointLogLine) => void;
}

const GiB = 1024 * 1024 * 1024;
const defaultLimits: ReleaseEndpointLimits = { maxOutputBytes: 16 * GiB, maxResultBytes: 1024 * 1024 };

type Route = { route: 'artifact'; id: string } | { route: 'job' | 'input' | 'output' | 'result'; id: string };

type RouteName = Route['route'];
const routeMethods = ['GET', 'PUT'] as const;

/** The endpoint's routes (find-my-way: `:id` decoded, the query left out, no trailing slash). */
// endpointIdPattern bounds an id (128 characters); the router's own bound (default 100) must not
// cut one short, escaped or not.
const router = Router({ maxParamLength: 1024 });
for (const [method, path, route] of [
  ['GET', '/v1/releases/:id/artifact', 'artifact'],
  ['GET', '/v1/jobs/:id', 'job'],
  ['GET', '/v1/jobs/:id/input', 'input'],
  ['PUT', '/v1/jobs/:id/output', 'output'],
  ['PUT', '/v1/jobs/:id/result', 'result'],
] as const satisfies readonly [(typeof routeMethods)[number], string, RouteName][]) {
  router.on(method, path, () => undefined, { route });
}

/** The route of a request, or an SvcError for an unknown path or id (404), or a method the path does not take (405). */
function matchRoute(method: string, url: string): Route {
  let takes: string | null = null;
  for (const candidate of routeMethods) {
    const found = router.find(candidate, url);
    if (!found) continue;
    const id = found.params.id;
    if (id === undefined || !endpointIdPattern.test(id)) break;
    const { route } = found.store as { route: RouteName };
    if (candidate === method) return { route, id };
    takes = `${route} takes ${candidate}`;
  }
  if (takes !== null) throw new SvcError('SVC_METHOD_NOT_ALLOWED', takes);
  throw new SvcError('SVC_NOT_FOUND', 'No such route on the release endpoint');
}

function unknown(what: string): SvcError {
  return new SvcError('SVC_RELEASE_ENDPOINT_UNKNOWN', `No ${what} here`);
}

/** Read a bounded body (a declared length past the bound is refused before reading). */
async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > maxBytes) throw new SvcError('SVC_PAYLOAD_TOO_LARGE', `The body exceeds ${maxBytes} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new SvcError('SVC_PAYLOAD_TOO_LARGE', `The body exceeds ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The release endpoint as a node:http server, not listening. */
export function buildReleaseEndpoint(deps: ReleaseEndpointDeps): Server {
  const limits = { ...defaultLimits, ...deps.limits };
  const verify = (req: IncomingMessage, expect: Parameters<typeof verifyCredential>[1]['expect']): CredentialClaims =>
    verifyCredential(bearerToken(req.headers.authorization), {
      key: deps.credentialKey,
      clock: deps.clock,
      expect,
      isRevoked: (claims) => deps.isRevoked(claims),
    });
  const describe = async (jobId: string): Promise<JobDescription> => (await deps.jobs.describe(jobId)) ?? Promise.reject(unknown(`job ${jobId}`));

  async function serveArtifact(req: IncomingMessage, res: ServerResponse, releaseId: string): Promise<void> {
    const claims = verify(req, (c) => (c.scope === 'release' && c.id === releaseId) || c.scope === 'job');
    if (claims.scope === 'job') {
      // A job credential reaches only the release its own job reads.
      const job = await deps.jobs.describe(claims.id);
      if (!job || !job.needsRelease || job.releaseId !== releaseId)
        throw new SvcError('SVC_RELEASE_CREDENTIAL_SCOPE', `Job ${claims.id} does not read release ${releaseId}`);
    }
    const artifact = await deps.artifactFor(releaseId, claims.project);
    if (!artifact) throw unknown(`artifact of release ${releaseId}`);
    await sendFile(res, artifact.path, { 'content-type': ARTIFACT_MEDIA_TYPE, [SHA256_HEADER]: artifact.sha256 });
  }

  async function handle(req: IncomingMessage, res: ServerResponse, route: Route): Promise<void> {
    if (route.route === 'artifact') return serveArtifact(req, res, route.id);
    verify(req, { scope: 'job', id: route.id });
    const description = await describe(route.id);
    switch (route.route) {
      case 'job':
        return sendJson(res, 200, description);
      case 'input': {
        const path = await deps.jobs.inputFor(route.id);
        if (!path) throw unknown(`input of job ${route.id}`);
        await sendFile(res, path, {});
        return;
      }
      case 'output': {
        const path = await deps.jobs.outputFor(route.id);
        if (!path) throw unknown(`output of job ${route.id}`);
        const declared = Number(req.headers['content-length'] ?? NaN);
        if (declared > limits.maxOutputBytes) throw new SvcError('SVC_PAYLOAD_TOO_LARGE', `The output exceeds ${limits.maxOutputBytes} bytes`);
        return sendJson(res, 200, await receiveUpload(req, path, { maxBytes: limits.maxOutputBytes }));
      }
      case 'result': {
        if (!/^application\/json\b/i.test(req.headers['content-type'] ?? ''))
          throw new SvcError('SVC_UNSUPPORTED_MEDIA_TYPE', 'A job result is application/json');
        const text = (await readBody(req, limits.maxResultBytes)).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          throw new SvcError('SVC_MALFORMED_JSON', 'The job result is not JSON');
        }
        await deps.jobs.acceptResult(route.id, parseJobResult(description.job.type, body));
        return sendJson(res, 200, { accepted: true });
      }
    }
  }

  const server = createServer((req, res) => {
    let route: Route | null = null;
    const done = (status: number, code?: string, cause?: string): void =>
      deps.log?.({
        method: req.method ?? '',
        route: route?.route ?? 'unknown',
        id: route?.id ?? null,
        status,
        ...(code ? { code } : {}),
        ...(cause ? { cause } : {}),
      });
    Promise.resolve()
      .then(() => {
        route = matchRoute(req.method ?? '', req.url ?? '/');
        return handle(req, res, route);
      })
      .then(
        () => done(res.statusCode),
        (error: unknown) => {
          const svc = endpointError(error);
          sendError(res, svc);
          // An unread upload keeps the socket busy: the reply above closes the connection.
          req.resume();
          done(svc.status, svc.code, svc.code === 'SVC_INTERNAL' && error instanceof Error ? error.message : undefined);
        },
      );
  });
  // Large snapshots stream for a long time; slow headers are still cut early.
  server.requestTimeout = 60 * 60 * 1000;
  server.headersTimeout = 30_000;
  return server;
}
