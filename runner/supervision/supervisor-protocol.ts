// The control connection between a controller (the provider) and a runtime supervisor: Node IPC
// messages, validated with zod on both ends. Secrets travel here (never in argv or the supervisor's env).
import { z } from 'zod';
import { leaseSchema } from './fence-file.js';

const dir = z.string().min(1).max(4096);

/** Which runner the supervisor builds, as plain data (the controller's runner objects cannot cross a process boundary). */
export const runnerConfigSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('process'), runsDir: dir, logsDir: dir, stopGraceMs: z.number().int().min(0).max(600_000).optional() }),
  z.object({
    kind: z.literal('container'),
    runsDir: dir,
    logsDir: dir,
    stopGraceMs: z.number().int().min(0).max(600_000).optional(),
    image: z.string().min(1).max(255),
    limits: z
      .object({ user: z.string(), memory: z.string(), pids: z.number().int(), cpus: z.string(), tmpfsSize: z.string(), ulimits: z.array(z.string()) })
      .partial()
      .optional(),
    podman: z.object({ podman: z.string().min(1), runtime: z.string().min(1) }),
  }),
  z.object({
    kind: z.literal('sandbox'),
    runsDir: dir,
    logsDir: dir,
    stopGraceMs: z.number().int().min(0).max(600_000).optional(),
    network: z.enum(['isolated', 'shared']),
    limits: z.object({
      memoryBytes: z.number().int().positive(),
      processes: z.number().int().positive(),
      openFiles: z.number().int().positive(),
      tmpBytes: z.number().int().positive(),
    }),
    bwrapPath: z.string().startsWith('/').optional(),
    /** The project's own uid, set per start by the controller (root only); never 0, never a system uid. */
    uid: z.number().int().min(1000).max(2_147_483_646).optional(),
    /** Folders from which down to the sandbox's mounts search permission may be added (the node's data directory). */
    traversableRoots: z.array(dir).max(16).optional(),
  }),
]);
export type RunnerConfig = z.infer<typeof runnerConfigSchema>;

const record = z.record(z.string(), z.string());
export const startSpecSchema = z.object({
  projectId: z.string(),
  releaseId: z.string(),
  releaseDir: dir,
  entry: z.string(),
  dataDir: dir,
  databasePath: dir,
  env: record,
  secrets: record,
  platformEnv: record.optional(),
  port: z.number().int().min(1).max(65535).optional(),
  host: z.string().optional(),
});

/** Controller → supervisor. */
export const controlMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('start'),
    runId: z.string(),
    fencePath: dir,
    lease: leaseSchema,
    leaseCheckMs: z.number().int().min(10).max(60_000),
    runner: runnerConfigSchema,
    spec: startSpecSchema,
  }),
  z.object({ type: z.literal('renew'), expiresAt: z.number() }),
  z.object({ type: z.literal('stop'), graceMs: z.number().int().min(0).max(600_000) }),
]);
export type ControlMessage = z.infer<typeof controlMessageSchema>;

const exitSchema = z.object({ code: z.number().nullable(), signal: z.string().nullable(), at: z.number() });
const recordSchema = z.object({
  kind: z.enum(['process', 'container', 'sandbox', 'swarm']),
  id: z.string(),
  projectId: z.string(),
  releaseId: z.string(),
  port: z.number(),
  host: z.string(),
  startedAt: z.number(),
  pid: z.number().optional(),
  processStartTime: z.string().nullable().optional(),
  runDir: z.string().optional(),
  containerId: z.string().optional(),
  sandbox: z
    .object({
      initPid: z.number(),
      initStartTime: z.string().nullable(),
      netPid: z.number().optional(),
      netStartTime: z.string().nullable().optional(),
      uid: z.number().optional(),
    })
    .optional(),
});

/** Supervisor → controller. */
export const supervisorMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('started'), record: recordSchema }),
  z.object({ type: z.literal('failed'), code: z.string(), message: z.string() }),
  z.object({
    type: z.literal('exited'),
    exit: exitSchema,
    reason: z.enum(['stop-requested', 'control-lost', 'lease-expired', 'app-exited']),
    verified: z.boolean(),
  }),
]);
export type SupervisorMessage = z.infer<typeof supervisorMessageSchema>;
