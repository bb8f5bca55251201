// `POST /services/create` (and `/services/{id}/update`) body for a project's release: one replicated
// service per project (a second one for a canary), health-gated start-first updates that Docker rolls
// back on failure, reached by svc's ingress through a host-mode port the engine picks per task. Pure.
import { SvcError } from '../../src/core/errors.js';
import type { EngineHealthCheck, EngineServiceSpec, EngineUpdateConfig } from './engine-spec.js';
import { swarmServiceName } from './swarm-names.js';
import { serveArgs, swarmLabels, swarmTaskTemplate, type SwarmSecretRef, type SwarmTaskInput } from './swarm-task-template.js';
import { nanoseconds } from './swarm-units.js';

/**
 * Health probe timings (the app's health path and overall timeout come from its deploy file). Docker
 * kills a serving task after Retries failed probes in a row, and each probe spawns node: on a loaded
 * node a 2 s probe and 3 retries killed healthy tasks, so the probe is lenient; a candidate's gate
 * does not wait longer for it (the first passing probe makes it healthy; svc's own check has the app's timeout).
 */
export const SWARM_HEALTH_INTERVAL_MS = 2_000;
export const SWARM_HEALTH_PROBE_TIMEOUT_MS = 4_000;
export const SWARM_HEALTH_RETRIES = 5;
/** Restart delay of a crashed task (swarm has no backoff; svc reports repeated restarts). */
export const SWARM_RESTART_DELAY_MS = 1_000;

// Exec form: the image has no /bin/sh. Node itself probes loopback inside the task; any non-2xx,
// network error or timeout exits 1.
const PROBE_SCRIPT =
  "fetch('http://127.0.0.1:'+process.env.PORT+process.argv[1],{signal:AbortSignal.timeout(Number(process.argv[2]))})" +
  '.then(r=>process.exit(r.ok?0:1),()=>process.exit(1))';

export interface ReleaseServiceInput extends SwarmTaskInput {
  role: 'app' | 'canary';
  /** `entry` of the release's deploy file. */
  entry: string;
  env: Readonly<Record<string, string>>;
  secrets: readonly SwarmSecretRef[];
  /** Port the app listens on inside the task. */
  port: number;
  health: { path: string; timeoutMs: number };
  /** Default 1. */
  replicas?: number;
}

/** The exec-form health check polling the app's health path on loopback inside the task. */
export function swarmHealthCheck(health: { path: string; timeoutMs: number }): EngineHealthCheck {
  if (!/^\/[\x21-\x7e]*$/.test(health.path))
    throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'The health path must start with / and hold no spaces or control characters');
  if (!Number.isSafeInteger(health.timeoutMs) || health.timeoutMs <= 0)
    throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'The health timeout must be a positive number of milliseconds');
  return {
    Test: ['CMD', '/usr/bin/node', '-e', PROBE_SCRIPT, health.path, String(SWARM_HEALTH_PROBE_TIMEOUT_MS)],
    Interval: nanoseconds(SWARM_HEALTH_INTERVAL_MS),
    Timeout: nanoseconds(SWARM_HEALTH_PROBE_TIMEOUT_MS + 1_000),
    Retries: SWARM_HEALTH_RETRIES,
    // Failures while the app boots do not count: it has the whole health timeout to come up.
    StartPeriod: nanoseconds(health.timeoutMs),
  };
}

/** Start-first, one task at a time; a task failing within the health timeout fails the update. */
export function swarmUpdateConfig(healthTimeoutMs: number, failureAction: EngineUpdateConfig['FailureAction']): EngineUpdateConfig {
  return { Parallelism: 1, Delay: 0, FailureAction: failureAction, Monitor: nanoseconds(healthTimeoutMs), MaxFailureRatio: 0, Order: 'start-first' };
}

/** The service spec of one release of a project. */
export function releaseServiceSpec(input: ReleaseServiceInput): EngineServiceSpec {
  const replicas = input.replicas ?? 1;
  if (!Number.isSafeInteger(replicas) || replicas < 1) throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'Replicas must be a positive integer');
  if (!Number.isSafeInteger(input.port) || input.port < 1 || input.port > 65_535)
    throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'The app port must be 1–65535');
  const template = swarmTaskTemplate(input, {
    role: input.role,
    env: input.env,
    secrets: input.secrets,
    args: serveArgs(input.entry),
    port: input.port,
    restart: { Condition: 'any', Delay: nanoseconds(SWARM_RESTART_DELAY_MS), MaxAttempts: 0, Window: 0 },
  });
  template.ContainerSpec.HealthCheck = swarmHealthCheck(input.health);
  return {
    Name: swarmServiceName(input.projectId, input.role),
    Labels: swarmLabels(input, input.role),
    TaskTemplate: template,
    Mode: { Replicated: { Replicas: replicas } },
    UpdateConfig: swarmUpdateConfig(input.health.timeoutMs, 'rollback'),
    // A failing rollback stops where it is: svc reports it instead of looping.
    RollbackConfig: swarmUpdateConfig(input.health.timeoutMs, 'pause'),
    // Host mode without a published port: the engine picks a free host port per task, so a start-first
    // update never collides with the task it replaces; svc reads it from the task's PortStatus. DNS
    // round-robin: no virtual IP (no IPVS, no iptables on the node).
    EndpointSpec: { Mode: 'dnsrr', Ports: [{ Protocol: 'tcp', TargetPort: input.port, PublishMode: 'host' }] },
  };
}
