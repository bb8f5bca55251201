// How `svc deploy` learns a release's outcome after the upload answered with a candidate: it follows
// GET …/releases/:releaseId/events, entering each step as a phase as the server records it, until the
// `end` line carries the final release. A server without that route (404) is polled instead.
// `svc rollback` follows its target the same way; the end line then also says how the rollback ended.
import { SvcError } from '../src/core/errors.js';
import type { HttpStream } from '../src/core/http/http-client.js';
import { routePath } from '../src/identity/contract.js';
import {
  RELEASE_EVENTS_MEDIA_TYPE,
  releaseEventSchema,
  releaseResponseSchema,
  releaseRoutes,
  type Release,
  type RollbackOutcome,
} from '../src/releases/contract.js';

import type { ApiClient } from './api-client.js';
import type { CliContext } from './context.js';
import { errorFromResponse, isOk, networkError } from './http-request.js';
import type { PhaseReporter } from './phase-progress.js';

/** What following one release needs. */
export interface FollowTarget {
  server: string;
  token: string;
  client: ApiClient;
  projectId: string;
  release: Release;
  phases: PhaseReporter;
  /** Bound of the polling fallback (the stream itself ends when the release does). */
  pollTimeoutMs: number;
}

// The server writes a blank line every 10 s; a minute of silence means the connection is gone.
const STREAM_IDLE_MS = 60_000;
const POLL_INTERVAL_MS = 500;

/** The release once it is no longer a candidate; throws SvcError when the server cannot be followed. */
export async function followRelease(ctx: CliContext, target: FollowTarget): Promise<Release> {
  const followed = await streamEvents(ctx, target);
  return followed?.release ?? pollRelease(ctx, target);
}

/** The end of a rollback to `target.release` (answered 202): the target as it ended, and how. */
export async function followRollback(ctx: CliContext, target: Omit<FollowTarget, 'pollTimeoutMs'>): Promise<FollowedEnd> {
  const followed = await streamEvents(ctx, target);
  // A server that answers 202 has the event stream; a 404 here means the release is gone.
  if (!followed) throw new SvcError('SVC_NOT_FOUND', `Release ${target.release.id} cannot be followed`);
  return followed;
}

interface FollowedEnd {
  release: Release;
  rollback?: RollbackOutcome | undefined;
}

async function streamEvents(ctx: CliContext, target: Omit<FollowTarget, 'pollTimeoutMs'>): Promise<FollowedEnd | null> {
  const url = new URL(routePath(releaseRoutes.events, { id: target.projectId, releaseId: target.release.id }), `${target.server}/`);
  let response: HttpStream;
  try {
    response = await ctx.http.open({
      method: 'GET',
      url,
      headers: { accept: RELEASE_EVENTS_MEDIA_TYPE, authorization: `Bearer ${target.token}`, 'user-agent': 'svc-cli' },
      timeoutMs: null,
      idleTimeoutMs: STREAM_IDLE_MS,
    });
  } catch (error) {
    throw networkError(error, url);
  }
  if (response.status === 404) {
    response.discard();
    return null; // a server from before the event stream
  }
  if (!isOk(response.status))
    throw errorFromResponse(response.status, (await response.read(64 * 1024).catch(() => Buffer.alloc(0))).toString('utf8'), response.header('retry-after'));
  try {
    for await (const line of jsonLines(response.body)) {
      const event = releaseEventSchema.safeParse(line);
      if (!event.success) continue; // an event this version does not know
      if (event.data.type === 'end') {
        response.discard();
        return { release: event.data.release, rollback: event.data.rollback };
      }
      // A data-restoring rollback reports its snapshot step with `restore`: it restores, not takes, one.
      const phase = event.data.details?.restore === true ? 'restore' : event.data.step;
      target.phases.phase(phase, { releaseId: target.release.id, at: event.data.at });
    }
  } catch (error) {
    throw new SvcError('SVC_NETWORK', `The event stream of release ${target.release.id} was interrupted (${(error as Error).message})`, { cause: error });
  }
  throw new SvcError('SVC_NETWORK', `The event stream of release ${target.release.id} ended before the release did`);
}

/** Parsed JSON lines of a streamed body; blank lines (keep-alives) and lines that are not JSON are skipped. */
async function* jsonLines(body: AsyncIterable<Uint8Array>): AsyncGenerator<unknown> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffered.indexOf('\n')) !== -1) {
      const line = buffered.slice(0, end).trim();
      buffered = buffered.slice(end + 1);
      if (line === '') continue;
      try {
        yield JSON.parse(line) as unknown;
      } catch {
        // not JSON: skipped
      }
    }
    if (buffered.length > 1_000_000) buffered = '';
  }
}

// The fallback: the release's step every half second until it is active or failed.
async function pollRelease(ctx: CliContext, target: FollowTarget): Promise<Release> {
  const deadline = ctx.clock.now() + target.pollTimeoutMs;
  let release = target.release;
  const path = routePath(releaseRoutes.release, { id: target.projectId, releaseId: release.id });
  while (release.status === 'candidate') {
    if (ctx.clock.now() > deadline)
      throw new SvcError('SVC_TIMEOUT', `Release ${release.id} is still at step ${release.step ?? '?'}`, { details: { releaseId: release.id } });
    if (release.step) target.phases.phase(release.step, { releaseId: release.id });
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
    release = (await target.client.request({ method: 'GET', path, schema: releaseResponseSchema })).release;
  }
  return release;
}
