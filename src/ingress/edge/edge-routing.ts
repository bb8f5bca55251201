// The ingress process's own routing: a RouteTable and IngressProxy (the same classes the control
// plane uses in-process) that follow the control plane's table over the route session, so project
// hosts go straight to the apps and keep flowing while the control plane is down. The table is
// saved under `<data>/run/` on every change and loaded at start.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { rmSync, statSync } from 'node:fs';
import { z } from 'zod';
import { IngressProxy } from '../proxy-request.js';
import { routeRequest, routeUpgrade } from '../route-request.js';
import { routeSettingsSchema, routeStateSchema, sameUpstream, type RouteSettings, type RouteState, type TargetState } from '../route-state.js';
import { newTarget, RouteTable, type UpstreamTarget } from '../route-table.js';
import type { EdgeRoute, EdgeStatus } from './edge-control.js';
import { readLines, writeLine } from './edge-session.js';
import { RecordOutbox } from './record-outbox.js';
import { loadRoutes, saveRoutes } from './routes-file.js';

const commandSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('snapshot'), settings: routeSettingsSchema, routes: z.array(routeStateSchema) }),
  z.object({ op: z.literal('route'), route: routeStateSchema }),
  z.object({ op: z.literal('remove'), projectId: z.string() }),
  z.object({ op: z.literal('drain'), id: z.number().int(), target: z.string(), timeoutMs: z.number().int().min(0).max(3_600_000) }),
]);

type Log = (fields: Record<string, unknown>) => void;

/** How often a handed-over ingress looks at its successor's saved table. */
const FOLLOW_FILE_MS = 100;

/** How long a new control plane may take to route the apps it re-adopts (health checks included). */
const PROVISIONAL_MS = 60_000;

export class EdgeRouting {
  readonly #file: string;
  readonly #log: Log;
  #settings: RouteSettings | null = null;
  #table: RouteTable | null = null;
  #proxy: IngressProxy | null = null;
  // Targets by the control plane's id, and back (a target is dropped once retired).
  readonly #targets = new Map<string, UpstreamTarget>();
  readonly #ids = new Map<UpstreamTarget, string>();
  readonly outbox = new RecordOutbox();
  #session: Socket | null = null;
  #saveTimer: NodeJS.Timeout | null = null;
  // Projects a new control plane's snapshot left unrouted while this table serves them: kept until
  // it routes them or the grace ends (projectId → the snapshot's state, null = absent).
  #provisional = new Map<string, RouteState | null>();
  #provisionalTimer: NodeJS.Timeout | null = null;
  #handedOver = false;

  constructor(routesFile: string, log: Log) {
    this.#file = routesFile;
    this.#log = log;
  }

  /** Load the saved table (routes apps before any control plane attaches). */
  load(): void {
    const saved = loadRoutes(this.#file);
    if (saved === null) return;
    this.#applySnapshot(saved.settings, saved.routes, true);
    this.#log({ level: 'info', msg: 'routes loaded', projects: saved.routes.length });
  }

  /** Proxy an app's request straight to its release (true = taken). Hot path. */
  route(req: IncomingMessage, res: ServerResponse): boolean {
    const table = this.#table;
    return table !== null && routeRequest(table, this.#proxy!, req, res);
  }

  /** Join an app's upgrade request (WebSocket) to its release (true = taken). */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const table = this.#table;
    return table !== null && routeUpgrade(table, this.#proxy!, req, socket, head);
  }

  /** The control plane attached on the command socket: follow its table from now on. */
  attach(socket: Socket, rest: string): void {
    this.#session?.destroy();
    this.#session = socket;
    socket.once('close', () => {
      if (this.#session !== socket) return;
      this.#session = null;
      this.outbox.connect(null);
      this.#log({ level: 'info', msg: 'control plane detached' });
    });
    readLines(socket, rest, (value) => this.#command(socket, value));
  }

  #command(socket: Socket, value: unknown): void {
    const parsed = commandSchema.safeParse(value);
    if (!parsed.success) {
      this.#log({ level: 'warn', msg: 'bad route command', issues: parsed.error.issues.slice(0, 3) });
      return;
    }
    const command = parsed.data;
    if (command.op === 'snapshot') {
      this.#applySnapshot(command.settings, command.routes);
      this.#log({ level: 'info', msg: 'control plane attached', projects: command.routes.length, recordsBuffered: this.outbox.buffered });
      this.outbox.connect((records, dropped) => writeLine(socket, { type: 'records', records, dropped }));
      this.#askPendingWakes();
    } else if (command.op === 'route') {
      this.#provisional.delete(command.route.projectId);
      this.#apply(command.route);
      this.#scheduleSave();
    } else if (command.op === 'remove') {
      this.#provisional.delete(command.projectId);
      this.#table?.removeProject(command.projectId);
      this.#scheduleSave();
    } else {
      const target = this.#targets.get(command.target) ?? null;
      void (this.#table?.drain(target, command.timeoutMs) ?? Promise.resolve(true)).then((ok) => writeLine(socket, { type: 'drained', id: command.id, ok }));
    }
  }

  #configure(settings: RouteSettings): RouteTable {
    if (this.#table !== null && JSON.stringify(settings) === JSON.stringify(this.#settings)) return this.#table;
    // New domains or platform hosts: a fresh table; requests held by the old one get their 503 now.
    this.#retireTable();
    let proxy: IngressProxy | null = null;
    const table = new RouteTable({
      baseDomain: settings.baseDomain,
      platformHosts: settings.platformHosts,
      onRetired: (target) => this.#retired(target),
      onDrainTimeout: (target) => proxy?.closeUpgrades(target),
      ...(settings.wakeHoldMs !== undefined ? { wakeHoldMs: settings.wakeHoldMs } : {}),
    });
    // Requests wait for an asleep route here: the control plane starts its app (or hears it on the next attach).
    table.onWake((projectId) => this.#askWake(projectId));
    this.#proxy = proxy = new IngressProxy({
      routes: table,
      trustProxy: settings.trustProxy,
      stampEndedAt: true,
      observers: [this.outbox.push],
    });
    this.#settings = settings;
    this.#table = table;
    return table;
  }

  #askWake(projectId: string): void {
    const session = this.#session;
    if (session !== null && writeLine(session, { type: 'wake', projectId })) this.#log({ level: 'info', msg: 'asked to wake', projectId });
  }

  /** A control plane attached: ask it to wake the asleep routes requests still wait on here. */
  #askPendingWakes(): void {
    const table = this.#table;
    if (table === null) return;
    for (const projectId of table.projectIds()) {
      const entry = table.get(projectId)!;
      if (entry.asleep && entry.target === null && entry.hold !== null && !entry.hold.expired) this.#askWake(projectId);
    }
  }

  #retireTable(): void {
    const table = this.#table;
    const proxy = this.#proxy;
    this.#table = null;
    this.#proxy = null;
    this.#settings = null;
    this.#targets.clear();
    this.#ids.clear();
    if (table === null || proxy === null) return;
    table.expireHolds();
    void proxy.idle(30_000).then(() => proxy.close());
  }

  /**
   * Replace the table with a control plane's. A control plane that just started routes the apps it
   * re-adopted only once they answer their health route, after its snapshot: a project this table
   * serves but the snapshot leaves without a target (absent, or no target, no hold and not asleep) keeps its
   * route until that control plane routes it or PROVISIONAL_MS pass. The saved table at start
   * (`fromFile`) is applied as it is.
   */
  #applySnapshot(settings: RouteSettings, routes: RouteState[], fromFile = false): void {
    const table = this.#configure(settings);
    const routed = new Set(table.projectIds().filter((projectId) => table.get(projectId)?.target));
    const byProject = new Map(routes.map((route) => [route.projectId, route]));
    this.#provisional.clear();
    if (!fromFile) {
      for (const projectId of routed) {
        const route = byProject.get(projectId);
        if (route === undefined || (route.target === null && route.holdUntil === null && !route.asleep)) this.#provisional.set(projectId, route ?? null);
      }
    }
    for (const projectId of table.projectIds()) if (!byProject.has(projectId) && !this.#provisional.has(projectId)) table.removeProject(projectId);
    const applied = routes.filter((route) => !this.#provisional.has(route.projectId));
    // Twice: a custom domain that moved between projects is free only once its old owner was updated.
    for (let pass = 0; pass < 2; pass++) for (const route of applied) this.#apply(route);
    if (this.#provisionalTimer !== null) clearTimeout(this.#provisionalTimer);
    this.#provisionalTimer = this.#provisional.size === 0 ? null : setTimeout(() => this.#endProvisional(), PROVISIONAL_MS);
    this.#provisionalTimer?.unref();
    this.#scheduleSave();
  }

  #endProvisional(): void {
    this.#provisionalTimer = null;
    for (const [projectId, route] of this.#provisional) {
      if (route === null) this.#table?.removeProject(projectId);
      else this.#apply(route);
    }
    this.#provisional.clear();
    this.#scheduleSave();
  }

  #apply(route: RouteState): void {
    const table = this.#table;
    if (table === null) return;
    try {
      table.applyRoute(route, (target) => this.#resolve(target));
    } catch (error) {
      this.#log({ level: 'warn', msg: 'route not applied', projectId: route.projectId, err: (error as Error).message });
    }
  }

  /**
   * This table's target for a control-plane target: the one already known by id; else the routed one
   * with the same address and release (a restarted control plane names the processes it re-adopted
   * with new ids, in its snapshot or when it routes them later), so its in-flight count and open
   * connections carry on and its next cutover drains them; else a new one.
   */
  #resolve(state: TargetState): UpstreamTarget {
    let target = this.#targets.get(state.id);
    if (target === undefined) {
      for (const [id, candidate] of this.#targets) {
        if (candidate.routed && sameUpstream(candidate, state)) {
          this.#targets.delete(id);
          target = candidate;
          break;
        }
      }
    }
    target ??= newTarget({ host: state.host, port: state.port }, state.releaseId);
    this.#targets.set(state.id, target);
    this.#ids.set(target, state.id);
    return target;
  }

  #retired(target: UpstreamTarget): void {
    this.#proxy?.retire(target);
    const id = this.#ids.get(target);
    this.#ids.delete(target);
    if (id !== undefined && this.#targets.get(id) === target) this.#targets.delete(id);
  }

  #scheduleSave(): void {
    if (this.#saveTimer !== null) return;
    this.#saveTimer = setTimeout(() => {
      this.#saveTimer = null;
      this.#save();
    }, 20);
  }

  #save(): void {
    if (this.#handedOver) return;
    const table = this.#table;
    const settings = this.#settings;
    if (table === null || settings === null) return;
    const idOf = (target: UpstreamTarget): string => this.#ids.get(target) ?? `${target.host}:${target.port}`;
    const routes = table.projectIds().flatMap((projectId) => table.exportRoute(projectId, idOf) ?? []);
    try {
      saveRoutes(this.#file, { settings, routes });
    } catch (error) {
      this.#log({ level: 'error', msg: 'saving routes failed', err: (error as Error).message });
    }
  }

  /** Write the table now (a successor is about to load it). */
  saveNow(): void {
    if (this.#saveTimer !== null) clearTimeout(this.#saveTimer);
    this.#saveTimer = null;
    this.#save();
  }

  /**
   * Let the control plane go: it re-attaches on the command socket, which a successor now owns. The
   * saved table is the successor's from now on: this one no longer writes it.
   */
  detach(): void {
    if (this.#saveTimer !== null) clearTimeout(this.#saveTimer);
    this.#saveTimer = null;
    this.#handedOver = true;
    // Records so far go out before the end of the session; later ones stay for the successor.
    this.outbox.flush();
    this.outbox.connect(null);
    this.#session?.end();
    this.#followFile();
  }

  /**
   * While it finishes, a handed-over ingress follows the successor's saved table, so requests it
   * still holds (a project in a hold) go to the target the control plane routes next.
   */
  #followFile(): void {
    let seen = statSync(this.#file, { throwIfNoEntry: false })?.mtimeMs ?? 0;
    setInterval(() => {
      const mtime = statSync(this.#file, { throwIfNoEntry: false })?.mtimeMs ?? 0;
      if (mtime === seen) return;
      seen = mtime;
      const saved = loadRoutes(this.#file);
      if (saved !== null) this.#applySnapshot(saved.settings, saved.routes, true);
    }, FOLLOW_FILE_MS).unref();
  }

  /** The control plane routes apps itself (SVC_INGRESS_ROUTES=control-plane): forget the table and its file. */
  clear(): void {
    this.#retireTable();
    rmSync(this.#file, { force: true });
    this.#log({ level: 'info', msg: 'routes cleared; every request goes to the control plane' });
  }

  /** The live table with in-flight counts. */
  list(): EdgeRoute[] {
    return (this.#table?.list() ?? []).map(({ projectId, hosts, upstream, releaseId, generation, inFlight, liveStreams }) => ({
      projectId,
      hosts,
      upstream,
      releaseId,
      generation,
      inFlight,
      liveStreams,
    }));
  }

  status(): EdgeStatus['routing'] {
    return {
      table: this.#table !== null,
      projects: this.#table?.projectIds().length ?? 0,
      attached: this.#session !== null,
      recordsBuffered: this.outbox.buffered,
      recordsDropped: this.outbox.droppedTotal,
    };
  }

  /**
   * Stopping: held requests get their 503 (after a handoff, `expireHolds: false`, they wait out their
   * hold), running ones may finish for `graceMs`, then connections close.
   */
  async close(graceMs: number, options: { expireHolds?: boolean } = {}): Promise<void> {
    if (this.#saveTimer !== null) {
      clearTimeout(this.#saveTimer);
      this.#saveTimer = null;
      this.#save();
    }
    const proxy = this.#proxy;
    if (options.expireHolds !== false) this.#table?.expireHolds();
    if (proxy !== null) {
      await proxy.idle(graceMs);
      await proxy.close();
    }
    this.outbox.flush();
  }
}
