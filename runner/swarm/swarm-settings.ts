// The settings that select the release driver (SVC_DRIVER) and shape the Docker Swarm one, read as a
// pure function of the environment. Invalid values fail start-up with SVC_SWARM_CONFIG; nothing ever
// falls back to another driver.
import { z } from 'zod';
import { SvcError } from '../../src/core/errors.js';

/** Which release driver runs apps: this machine's runners (`local`, the default) or a Docker swarm. */
export type DriverChoice = 'local' | 'swarm';

export interface SwarmSettings {
  /** The Docker engine of a swarm manager: `unix:///path/to/docker.sock`. */
  dockerHost: string;
  /** The base image pinned by id (`sha256:<hex>` or `name@sha256:<hex>`); undefined: built at start-up. */
  image: string | undefined;
  /** Where the release endpoint listens (tasks must reach this address); port 0 picks one. */
  endpoint: { host: string; port: number };
  /** Tasks of a project's service (all on the node holding its volume). */
  replicas: number;
  /** How long a stopped task keeps serving (lame duck) while the ingress moves to its successor. */
  drainMs: number;
  /** Control-plane shutdown scales every project to 0 instead of leaving the swarm running. */
  stopOnClose: boolean;
  /** How long a task may take to be scheduled, fetch its release and start, before its health timeout counts. */
  startTimeoutMs: number;
}

const onOff = z.enum(['on', 'off']);

const driverSchema = z.object({ SVC_DRIVER: z.enum(['local', 'swarm']).default('local') });

const swarmSchema = z.object({
  DOCKER_HOST: z
    .string()
    .regex(/^unix:\/\/\/[^\0\s]+$/, 'a unix socket such as unix:///var/run/docker.sock (tcp:// is not supported)')
    .default('unix:///var/run/docker.sock'),
  SVC_SWARM_IMAGE: z
    .string()
    .regex(/^(?:[a-z0-9][a-z0-9._/:-]*@)?sha256:[0-9a-f]{64}$/, 'an image pinned by id: sha256:<hex> or name@sha256:<hex>, never a tag')
    .optional(),
  SVC_SWARM_ENDPOINT: z
    .string({ error: 'the release endpoint address is required, e.g. http://10.0.0.1:7071 (an address swarm tasks reach)' })
    .url('a URL such as http://10.0.0.1:7071'),
  SVC_SWARM_REPLICAS: z.coerce.number().int().min(1).max(32).default(1),
  SVC_SWARM_DRAIN_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  SVC_SWARM_STOP_ON_CLOSE: onOff.default('off'),
  SVC_SWARM_START_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(60_000),
});

function configError(error: z.ZodError, fallback: string): SvcError {
  const issue = error.issues[0];
  return new SvcError('SVC_SWARM_CONFIG', `Invalid ${String(issue?.path[0] ?? fallback)}: ${issue?.message ?? 'invalid'}`);
}

/** SVC_DRIVER (pure; throws SVC_SWARM_CONFIG). */
export function readDriverChoice(env: Readonly<Record<string, string | undefined>>): DriverChoice {
  const parsed = driverSchema.safeParse(env);
  if (!parsed.success) throw configError(parsed.error, 'SVC_DRIVER');
  return parsed.data.SVC_DRIVER;
}

/** The listen address of SVC_SWARM_ENDPOINT: plain http on an IP literal or host name, any port (0 = pick). */
function endpointAddress(value: string): { host: string; port: number } {
  const url = new URL(value);
  if (url.protocol !== 'http:')
    throw new SvcError(
      'SVC_SWARM_CONFIG',
      'Invalid SVC_SWARM_ENDPOINT: the release endpoint listens on plain http:// (put it on a private link between the control plane and the swarm nodes)',
    );
  if (url.username || url.password || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    throw new SvcError('SVC_SWARM_CONFIG', 'Invalid SVC_SWARM_ENDPOINT: only http://<address>:<port> (no path, query or credentials)');
  }
  if (url.port === '') throw new SvcError('SVC_SWARM_CONFIG', 'Invalid SVC_SWARM_ENDPOINT: name the port (0 picks a free one, for tests only)');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '0.0.0.0' || host === '::') throw new SvcError('SVC_SWARM_CONFIG', 'Invalid SVC_SWARM_ENDPOINT: name the address tasks reach, not a wildcard');
  return { host, port: Number(url.port) };
}

/** The swarm driver's settings (pure; throws SVC_SWARM_CONFIG naming the setting). */
export function readSwarmSettings(env: Readonly<Record<string, string | undefined>>): SwarmSettings {
  const parsed = swarmSchema.safeParse(env);
  if (!parsed.success) throw configError(parsed.error, 'swarm setting');
  const e = parsed.data;
  return {
    dockerHost: e.DOCKER_HOST,
    image: e.SVC_SWARM_IMAGE,
    endpoint: endpointAddress(e.SVC_SWARM_ENDPOINT),
    replicas: e.SVC_SWARM_REPLICAS,
    drainMs: e.SVC_SWARM_DRAIN_MS,
    stopOnClose: e.SVC_SWARM_STOP_ON_CLOSE === 'on',
    startTimeoutMs: e.SVC_SWARM_START_TIMEOUT_MS,
  };
}

/** The socket path of a `unix://` DOCKER_HOST. */
export function dockerSocketPath(dockerHost: string): string {
  return dockerHost.slice('unix://'.length);
}
