// `svc-runner` configuration from the environment (docs/runner-agent.md), validated with zod.
// The defaults are listed by `svc-runner --help`.
import { z } from 'zod';
import { SvcError } from '../src/core/errors.js';

const MiB = 1024 * 1024;
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** Every setting, its variable, default and meaning: the single source of `--help`. */
export const runnerSettingDocs: readonly { name: string; default: string; meaning: string }[] = [
  { name: 'SVC_CONTROL_URL', default: '(required for the agent)', meaning: 'control-plane base address' },
  { name: 'SVC_RUNNER_NODE_ID', default: '(required for the agent)', meaning: 'node identifier' },
  { name: 'SVC_RUNNER_REGION', default: 'default', meaning: 'region' },
  { name: 'SVC_RUNNER_REGISTRATION_TOKEN', default: '(first enrollment only)', meaning: 'one-time registration token; remove it after enrollment' },
  { name: 'SVC_RUNNER_CREDENTIALS', default: './svc-runner-credentials.json', meaning: 'path of the persisted node credentials file' },
  { name: 'SVC_PROVIDER_URL', default: '(local provider)', meaning: 'provider bridge address (HTTPS unless loopback)' },
  { name: 'SVC_PROVIDER_TOKEN', default: '(required with a bridge)', meaning: 'bridge bearer token, 32–512 characters, used for nothing else' },
  {
    name: 'SVC_RUNNER_ADVERTISE_HOST',
    default: "(the app's own address, 127.0.0.1)",
    meaning:
      "address the control plane's ingress uses to reach this node's apps (their ports are the apps' own); the default suits a node on the control plane's host",
  },
  { name: 'SVC_RUNNER_CAPACITY', default: '10', meaning: 'capacity: projects this node accepts' },
  { name: 'SVC_RUNNER_LABELS', default: '(none)', meaning: 'labels: comma-separated key=value pairs used for placement' },
  { name: 'SVC_RUNNER_CONCURRENCY', default: '2', meaning: 'concurrency: reconcile operations run at the same time' },
  { name: 'SVC_RUNNER_TIMEOUT_MS', default: '900000', meaning: 'timeout: bound on one reconcile, in milliseconds' },
  { name: 'SVC_RUNNER_RETRY_ATTEMPTS', default: '5', meaning: 'retry: bridge deliveries per request (network failure, 408, 425, 429, 5xx)' },
  { name: 'SVC_RUNNER_RETRY_DELAY_MS', default: '250', meaning: 'retry: first retry delay, doubled per attempt (capped at 10 s)' },
  { name: 'SVC_RUNNER_MAX_ARTIFACT_BYTES', default: String(128 * MiB), meaning: 'artifact limit: largest artifact fetched or accepted, in bytes' },
  { name: 'SVC_RUNNER_DATA_DIR', default: './.svc-runner', meaning: 'provider state: releases, project data, fence database' },
  { name: 'SVC_RUNNER', default: 'process', meaning: 'app runner: process (each app in a bubblewrap sandbox) or container (podman)' },
  { name: 'SVC_SANDBOX', default: 'on', meaning: 'off runs process apps unsandboxed as the runner user (trusted apps only; warned at start-up)' },
  {
    name: 'SVC_SANDBOX_UID_BASE',
    default: '200000',
    meaning: "first uid a project's sandboxed apps run under (root only; kept in the fence database, never reused)",
  },
  { name: 'SVC_SUPERVISOR_LEASE_MS', default: '30000', meaning: 'controller lease the app supervisors hold (300–30000 ms); lost → apps stop' },
  { name: 'SVC_SUPERVISOR_LEASE_WAIT_MS', default: '30000', meaning: 'start-up wait for an earlier controller lease to expire (at most 30000 ms)' },
  { name: 'SVC_CONTAINER_IMAGE', default: 'localhost/svc-node:20', meaning: 'container image (build it with npm run build:image)' },
];

const labels = z
  .string()
  .default('')
  .transform((text, ctx) => {
    const out: Record<string, string> = {};
    for (const pair of text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const match = /^([a-z0-9][a-z0-9._/-]{0,62})=([A-Za-z0-9._-]{0,63})$/.exec(pair);
      if (!match) {
        ctx.addIssue({ code: 'custom', message: `bad label ${JSON.stringify(pair)} (want key=value)` });
        return z.NEVER;
      }
      out[match[1]!] = match[2]!;
    }
    return out;
  });

const settingsSchema = z.object({
  SVC_CONTROL_URL: z.url().optional(),
  SVC_RUNNER_NODE_ID: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/)
    .optional(),
  SVC_RUNNER_REGION: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,62}$/)
    .default('default'),
  SVC_RUNNER_REGISTRATION_TOKEN: z.string().min(16).max(512).optional(),
  SVC_RUNNER_CREDENTIALS: z.string().min(1).default('./svc-runner-credentials.json'),
  SVC_PROVIDER_URL: z.url().optional(),
  SVC_PROVIDER_TOKEN: z.string().min(32).max(512).optional(),
  SVC_RUNNER_ADVERTISE_HOST: z
    .union([z.ipv4(), z.ipv6(), z.string().regex(/^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/)])
    .optional(),
  SVC_RUNNER_CAPACITY: int(1, 100_000).default(10),
  SVC_RUNNER_LABELS: labels,
  SVC_RUNNER_CONCURRENCY: int(1, 64).default(2),
  SVC_RUNNER_TIMEOUT_MS: int(1000, 24 * 3600_000).default(900_000),
  SVC_RUNNER_RETRY_ATTEMPTS: int(1, 20).default(5),
  SVC_RUNNER_RETRY_DELAY_MS: int(1, 60_000).default(250),
  SVC_RUNNER_MAX_ARTIFACT_BYTES: int(1024, 4 * 1024 * MiB).default(128 * MiB),
  SVC_RUNNER_DATA_DIR: z.string().min(1).default('./.svc-runner'),
});

/** Parsed runner node settings. */
export type RunnerNodeSettings = z.output<typeof settingsSchema>;

/** Parse the environment (pure); throws SVC_RUNNER_CONFIG naming the first bad variable. */
export function readRunnerNodeSettings(env: Readonly<Record<string, string | undefined>>): RunnerNodeSettings {
  const clean = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = settingsSchema.safeParse(clean);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SvcError('SVC_RUNNER_CONFIG', `${String(issue?.path[0] ?? 'setting')}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}
