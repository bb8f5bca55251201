// zod schemas for the part of the Engine API's answers svc reads (`GET /tasks`, `GET /services/{id}`):
// the future client parses every answer through them, so the verdict only ever sees checked data.
// Unknown fields pass (the Engine adds fields between versions); unknown states do not.
import { z } from 'zod';

export const TASK_STATES = ['new', 'allocated', 'pending', 'assigned', 'accepted', 'preparing', 'ready', 'starting', 'running', 'complete', 'shutdown', 'failed', 'rejected', 'remove', 'orphaned'] as const;
export type SwarmTaskState = (typeof TASK_STATES)[number];

export const UPDATE_STATES = ['updating', 'paused', 'completed', 'rollback_started', 'rollback_paused', 'rollback_completed'] as const;
export type SwarmUpdateState = (typeof UPDATE_STATES)[number];

const portStatusSchema = z.looseObject({
  Ports: z
    .array(z.looseObject({ Protocol: z.string().optional(), TargetPort: z.number().int().optional(), PublishedPort: z.number().int().optional(), PublishMode: z.string().optional() }))
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
export type SwarmService = z.infer<typeof swarmServiceSchema>;
