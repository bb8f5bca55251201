// Control-plane side of the route session: the control plane's RouteTable (the one every feature
// already switches, holds and drains) gets a follower that mirrors each change into the ingress
// process's table over `<data>/run/ingress.sock`, sends the whole table on every (re)connect, asks
// the ingress to drain (it owns the app connections), hands the request records it sends back
// to the same observers in-process requests reach (metrics, usage, canary samples) and its wakes of
// asleep routes to this table's wake listeners.
import { connect, type Socket } from 'node:net';
import { z } from 'zod';
import type { Logger } from '../../core/logger.js';
import type { Ingress } from '../create-ingress.js';
import type { RouteSettings, RouteState } from '../route-state.js';
import type { RouteFollower, UpstreamTarget } from '../route-table.js';
import { readLines, requestRecordSchema, writeLine, type SessionCommand } from './edge-session.js';

const eventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('drained'), id: z.number(), ok: z.boolean() }),
  z.object({ type: z.literal('records'), records: z.array(requestRecordSchema), dropped: z.number() }),
  z.object({ type: z.literal('wake'), projectId: z.string().min(1).max(200) }),
]);

export interface EdgeRoutesOptions {
  /** The ingress process's command socket. */
  socketPath: string;
  ingress: Pick<Ingress, 'routes' | 'report'>;
  settings: RouteSettings;
  logger: Logger;
}

export interface EdgeRoutes {
  /** Resolves once the first snapshot was handed to the ingress (false after `timeoutMs`). */
  attached(timeoutMs: number): Promise<boolean>;
  /** Stop following (shutdown): the ingress keeps its table and routes on. */
  close(): void;
}

/** Follow the control plane's route table into the ingress process; reconnects until closed. */
export function followEdgeRoutes(options: EdgeRoutesOptions): EdgeRoutes {
  const { routes } = options.ingress;
  const boot = `${process.pid.toString(36)}.${Date.now().toString(36)}`;
  const ids = new WeakMap<UpstreamTarget, string>();
  let nextId = 0;
  const idOf = (target: UpstreamTarget): string => {
    let id = ids.get(target);
    if (id === undefined) ids.set(target, (id = `${boot}.${++nextId}`));
    return id;
  };
  const dirty = new Set<string>();
  let flushQueued = false;
  let socket: Socket | null = null;
  let live = false; // snapshot sent on the current socket
  let closed = false;
  let drainId = 0;
  const drains = new Map<number, (ok: boolean) => void>();
  let onAttached: (() => void)[] = [];
  let retryMs = 50;

  const send = (command: SessionCommand): boolean => live && socket !== null && writeLine(socket, command);
  const flush = (): void => {
    flushQueued = false;
    if (!live) return; // the next snapshot carries everything
    for (const projectId of dirty) {
      const route = routes.exportRoute(projectId, idOf);
      send(route === null ? { op: 'remove', projectId } : { op: 'route', route });
    }
    dirty.clear();
  };
  const changed = (projectId: string): void => {
    dirty.add(projectId);
    if (flushQueued) return;
    flushQueued = true;
    queueMicrotask(flush);
  };

  const follower: RouteFollower = {
    changed,
    removed: changed,
    drain(target, timeoutMs) {
      flush(); // the ingress must see the switch before it is asked to drain the old target
      const id = ++drainId;
      if (!send({ op: 'drain', id, target: idOf(target), timeoutMs })) return Promise.resolve(true); // no ingress attached: nothing in flight we could wait for
      return new Promise((resolve) => {
        const timer = setTimeout(() => settle(false), timeoutMs + 1_000);
        const settle = (ok: boolean) => {
          clearTimeout(timer);
          drains.delete(id);
          resolve(ok);
        };
        drains.set(id, settle);
      });
    },
  };
  routes.follow(follower);

  const onEvent = (value: unknown): void => {
    const parsed = eventSchema.safeParse(value);
    if (!parsed.success) return;
    const event = parsed.data;
    if (event.type === 'drained') drains.get(event.id)?.(event.ok);
    // Held here too (once per hold, whoever asks): the listeners start the app, the hold reaches the ingress.
    else if (event.type === 'wake') routes.wake(event.projectId);
    else {
      if (event.dropped > 0)
        options.logger.warn({ dropped: event.dropped }, 'the ingress dropped request records while no control plane was attached; metrics and usage miss them');
      for (const record of event.records) options.ingress.report(record);
    }
  };

  const open = (): void => {
    if (closed) return;
    const current = connect({ path: options.socketPath });
    socket = current;
    current.once('connect', () => {
      retryMs = 50;
      writeLine(current, { op: 'attach' });
      const snapshot: RouteState[] = routes.projectIds().flatMap((projectId) => routes.exportRoute(projectId, idOf) ?? []);
      dirty.clear();
      live = true;
      writeLine(current, { op: 'snapshot', settings: { ...options.settings, wakeHoldMs: routes.wakeHoldMs }, routes: snapshot });
      readLines(current, '', onEvent);
      options.logger.info({ projects: snapshot.length }, 'routes sent to the ingress process');
      for (const wake of onAttached.splice(0)) wake();
    });
    current.on('error', () => current.destroy());
    current.once('close', () => {
      if (socket === current) {
        socket = null;
        live = false;
      }
      for (const settle of [...drains.values()]) settle(false);
      if (closed) return;
      setTimeout(open, retryMs).unref();
      retryMs = Math.min(2_000, retryMs * 2);
    });
  };
  open();

  return {
    attached(timeoutMs) {
      if (live) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        onAttached.push(() => {
          clearTimeout(timer);
          resolve(true);
        });
      });
    },
    close() {
      if (closed) return;
      flush();
      closed = true;
      routes.follow(null);
      onAttached = [];
      socket?.end();
    },
  };
}
