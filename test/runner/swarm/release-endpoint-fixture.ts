// A real release endpoint on 127.0.0.1:0 over real files, with a small in-memory job registry of the
// kind the swarm driver keeps: tests mint credentials for it, revoke them and read what jobs reported.
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { manualClock, type Clock } from '../../../src/core/clock.js';
import { SvcError } from '../../../src/core/errors.js';
import { buildReleaseEndpoint, type ReleaseEndpointLimits, type ReleaseEndpointLogLine } from '../../../runner/swarm/release-endpoint.js';
import { mintCredential, type CredentialScope } from '../../../runner/swarm/release-credentials.js';
import type { JobDescription, JobResult } from '../../../runner/swarm/swarm-job-protocol.js';

export interface FixtureJob {
  description: JobDescription;
  input?: string;
  output?: string;
  results: JobResult[];
}

export interface EndpointFixture {
  origin: string;
  clock: Clock & { advance(ms: number): void; set(ms: number): void };
  /** `${scope}:${id}:${generation}` of revoked credentials. */
  revoked: Set<string>;
  releases: Map<string, { path: string; sha256: string }>;
  jobs: Map<string, FixtureJob>;
  log: ReleaseEndpointLogLine[];
  token(scope: CredentialScope, id: string, options?: { generation?: number; lifetimeMs?: number }): string;
  close(): Promise<void>;
}

export interface EndpointFixtureOptions {
  limits?: Partial<ReleaseEndpointLimits>;
  artifactFor?: (id: string) => { path: string; sha256: string } | null;
  /** Default: a fresh random key. */
  key?: Buffer;
  /** Default: 0 (the kernel picks). */
  port?: number;
}

export async function startReleaseEndpoint(options: EndpointFixtureOptions = {}): Promise<EndpointFixture> {
  const key = options.key ?? randomBytes(32);
  // Starts at the real time: tokens are also verified after a child process needed real seconds.
  const clock = manualClock(Date.now());
  const revoked = new Set<string>();
  const releases = new Map<string, { path: string; sha256: string }>();
  const jobs = new Map<string, FixtureJob>();
  const log: ReleaseEndpointLogLine[] = [];
  const server = buildReleaseEndpoint({
    credentialKey: key,
    clock,
    isRevoked: (claims) => revoked.has(`${claims.scope}:${claims.id}:${claims.generation}`),
    artifactFor: options.artifactFor ?? ((id) => releases.get(id) ?? null),
    jobs: {
      describe: (id) => jobs.get(id)?.description ?? null,
      inputFor: (id) => jobs.get(id)?.input ?? null,
      outputFor: (id) => jobs.get(id)?.output ?? null,
      acceptResult: (id, result) => {
        const job = jobs.get(id)!;
        // The same result again (a retried PUT whose answer was lost) is accepted; another one is not.
        const first = job.results[0];
        if (first && JSON.stringify(first) !== JSON.stringify(result)) throw new SvcError('SVC_CONFLICT', `job ${id} already reported`);
        job.results.push(result);
      },
    },
    ...(options.limits ? { limits: options.limits } : {}),
    log: (line) => log.push(line),
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    clock,
    revoked,
    releases,
    jobs,
    log,
    token: (scope, id, tokenOptions = {}) =>
      mintCredential({
        key,
        clock,
        scope,
        id,
        project: 'prj_1',
        generation: tokenOptions.generation ?? 1,
        ...(tokenOptions.lifetimeMs ? { lifetimeMs: tokenOptions.lifetimeMs } : {}),
      }).token,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
