// zod schemas for the part of the Engine API's answers svc reads (`GET /tasks`, `GET /services/{id}`):
// the future client parses every answer through them, so the verdict only ever sees checked data.
// Unknown fields pass (the Engine adds fields between versions); unknown states do not.
import { z } from 'zod';

export const TASK_STATES = [
  'new',
  'allocated',
  'pending',
  'assigned',
  'accepted',
  'preparing',
  'ready',
  'starting',
  'running',
  'complete',
  'shutdown',
  'failed',
  'rejected',
  'remove',
  'orphaned',
] as const;
export type SwarmTaskState = (typeof TASK_STATES)[number];

export const UPDATE_STATES = ['updating', 'paused', 'completed', 'rollback_started', 'rollback_paused', 'rollback_completed'] as const;

const portStatusSchema = z.looseObject({
  Ports: z
    .array(
      z.looseObject({
        Protocol: z.string().optional(),
        TargetPort: z.number().int().optional(),
        PublishedPort: z.number().int().optional(),
        PublishMode: z.string().optional(),
      }),
    )
    .optional(),
});

export const swarmTaskSchema = z.looseObject({
  ID: z.string().min(1),
  ServiceID: z.string().min(1),
  NodeID: z.string().optional(),
  DesiredState: z.enum(TASK_STATES),
  Spec: z.looseObject({ ContainerSpec: z.looseObject({ Labels: z.record(z.string(), z.string()).optional() }).optional() }),
  Status: z.looseObject({
    State: z.enum(TASK_STATES),
    Timestamp: z.string().optional(),
    Message: z.string().optional(),
    Err: z.string().optional(),
    ContainerStatus: z.looseObject({ ContainerID: z.string().optional(), ExitCode: z.number().int().optional() }).optional(),
    PortStatus: portStatusSchema.optional(),
  }),
});
export type SwarmTask = z.infer<typeof swarmTaskSchema>;
export const swarmTaskListSchema = z.array(swarmTaskSchema);

export const swarmUpdateStatusSchema = z.looseObject({
  State: z.enum(UPDATE_STATES),
  StartedAt: z.string().optional(),
  CompletedAt: z.string().optional(),
  Message: z.string().optional(),
});
export type SwarmUpdateStatus = z.infer<typeof swarmUpdateStatusSchema>;

export const swarmServiceSchema = z.looseObject({
  ID: z.string().min(1),
  Version: z.looseObject({ Index: z.number().int() }),
  Spec: z.looseObject({ Name: z.string(), Labels: z.record(z.string(), z.string()).optional() }),
  UpdateStatus: swarmUpdateStatusSchema.optional(),
});

// Answers the engine client reads besides tasks and services (same rule: extra fields pass).
const labelsSchema = z
  .record(z.string(), z.string())
  .nullish()
  .transform((labels) => labels ?? {});

/** `GET /services/{id}` and `GET /services` items, with the spec an update would roll back to. */
export const swarmServiceDetailSchema = swarmServiceSchema.extend({
  PreviousSpec: z.looseObject({ Name: z.string(), Labels: z.record(z.string(), z.string()).optional() }).optional(),
});
export type SwarmServiceDetail = z.infer<typeof swarmServiceDetailSchema>;

/** `GET /version`. */
export const engineVersionSchema = z.looseObject({ Version: z.string(), ApiVersion: z.string(), Os: z.string().optional(), Arch: z.string().optional() });

/** `GET /info`: the swarm node this engine is (empty when not in a swarm). */
export const engineInfoSchema = z.looseObject({ Swarm: z.looseObject({ NodeID: z.string().optional() }).optional() });

/** `GET /nodes` items. */
export const swarmNodeSchema = z.looseObject({
  ID: z.string().min(1),
  Spec: z.looseObject({ Role: z.enum(['manager', 'worker']), Availability: z.enum(['active', 'pause', 'drain']), Labels: labelsSchema }),
  Description: z.looseObject({ Hostname: z.string().optional() }).optional(),
  Status: z.looseObject({ State: z.enum(['unknown', 'down', 'ready', 'disconnected']), Addr: z.string().optional() }),
});

/** `GET /secrets` items (the value never comes back). */
export const swarmSecretSchema = z.looseObject({ ID: z.string().min(1), Spec: z.looseObject({ Name: z.string(), Labels: labelsSchema }) });

/** `GET /networks` items. */
export const engineNetworkSchema = z.looseObject({
  Id: z.string().min(1),
  Name: z.string(),
  Driver: z.string().optional(),
  Scope: z.string().optional(),
  Labels: labelsSchema,
});

/** `GET /volumes`. */
export const engineVolumeListSchema = z.looseObject({
  Volumes: z
    .array(z.looseObject({ Name: z.string().min(1), Driver: z.string().optional(), Labels: labelsSchema }))
    .nullish()
    .transform((volumes) => volumes ?? []),
});

/** `GET /images/{name}/json`. */
export const engineImageSchema = z.looseObject({ Id: z.string().regex(/^sha256:[0-9a-f]{64}$/) });

/** `GET /images/json` items. */
export const engineImageSummarySchema = z.looseObject({ Id: z.string().regex(/^sha256:[0-9a-f]{64}$/), Created: z.number().optional(), Labels: labelsSchema });

/** Any answer that only carries an id (`POST …/create`). */
export const engineCreatedSchema = z.looseObject({ ID: z.string().min(1) });
