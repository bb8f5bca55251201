// The ingress process's first IPC message to whoever spawned it: the platform (ensure-ingress.ts) or
// the old ingress handing its listener over (handoff.ts). Its own module so both sides and the
// ingress entry (ingress-main.ts) import it from below.
import type { EdgeStatus } from './edge-control.js';

/** Sent over IPC to the process that spawned the ingress. */
export type IngressStartMessage = { type: 'ready'; status: EdgeStatus } | { type: 'failed'; code: string; message: string };
