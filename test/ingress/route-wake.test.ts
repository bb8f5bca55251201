// Asleep routes in the route table, without sockets: the wake hold a request starts (listeners told
// once per hold), what clears `asleep`, and how the state travels to a follower's copy.
import { describe, expect, it } from 'vitest';
import { RouteTable, type UpstreamTarget } from '../../src/ingress/route-table.js';

const up = (port: number) => ({ host: '127.0.0.1', port });
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

function asleepTable(wakeHoldMs = 60_000): { routes: RouteTable; wakes: string[] } {
  const routes = new RouteTable({ wakeHoldMs });
  routes.setProject({ id: 'p1', slug: 'shop' }, null, null);
  routes.setAsleep('p1', true);
  const wakes: string[] = [];
  routes.onWake((projectId) => wakes.push(projectId));
  return { routes, wakes };
}

describe('asleep routes', () => {
  it('starts one wake hold for many requests and tells the listeners once; a removed listener hears nothing', async () => {
    const { routes, wakes } = asleepTable();
    const other: string[] = [];
    const off = routes.onWake((projectId) => other.push(projectId));
    const entry = routes.get('p1')!;
    const holds = Array.from({ length: 50 }, () => routes.wakeHold(entry));
    expect(new Set(holds).size).toBe(1);
    expect(holds[0]).toMatchObject({ wake: true, expired: false });
    expect(holds[0]!.until).toBeGreaterThan(Date.now() + 59_000);
    // Told after the requests parked, not while the first one is still being taken.
    expect(wakes).toEqual([]);
    await tick();
    expect({ wakes, other }).toEqual({ wakes: ['p1'], other: ['p1'] });
    expect(routes.wake('p1')).toBe(true);
    off();
    routes.setAsleep('p1', false);
    routes.setAsleep('p1', true);
    expect(routes.wake('p1')).toBe(true);
    await tick();
    expect({ wakes, other }).toEqual({ wakes: ['p1', 'p1'], other: ['p1'] });
  });

  it('turns the hold the app was stopped under into a wake hold when a request comes: its requests kept, listeners told', async () => {
    const { routes, wakes } = asleepTable(5_000);
    routes.setProject({ id: 'p1', slug: 'shop' }, up(4001), 'r1');
    routes.setAsleep('p1', true);
    await routes.hold('p1', 30_000);
    const entry = routes.get('p1')!;
    const stopping = entry.hold!;
    let woken = 0;
    stopping.waiters.add(() => woken++);
    const hold = routes.wakeHold(entry)!;
    expect(hold).not.toBe(stopping);
    expect({ wake: hold.wake, until: hold.until, waiters: hold.waiters.size, woken }).toEqual({ wake: true, until: stopping.until, waiters: 1, woken: 0 });
    expect(routes.wakeHold(entry)).toBe(hold);
    await tick();
    expect(wakes).toEqual(['p1']);
  });

  it('starts no hold for a route that is awake, has a target, or after expireHolds (shutdown)', async () => {
    const { routes, wakes } = asleepTable();
    routes.setProject({ id: 'p2', slug: 'awake' }, null, null);
    expect(routes.wakeHold(routes.get('p2')!)).toBeNull();
    routes.setProject({ id: 'p3', slug: 'served' }, up(4003), 'r3');
    routes.setAsleep('p3', true);
    expect(routes.wakeHold(routes.get('p3')!)).toBeNull();
    expect(routes.wake('unknown')).toBe(false);
    routes.expireHolds();
    expect(routes.wake('p1')).toBe(false);
    await tick();
    expect(wakes).toEqual([]);
  });

  it('a hold that ran out is followed by a new one (listeners told again)', async () => {
    const { routes, wakes } = asleepTable(30);
    const first = routes.wakeHold(routes.get('p1')!)!;
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(first.expired).toBe(true);
    const second = routes.wakeHold(routes.get('p1')!)!;
    expect(second).not.toBe(first);
    await tick();
    expect(wakes).toEqual(['p1', 'p1']);
  });

  it('a switch to a target and removal clear asleep; a switch to none keeps it and its wake hold', async () => {
    const { routes, wakes } = asleepTable();
    const entry = routes.get('p1')!;
    const hold = routes.wakeHold(entry)!;
    let woken = 0;
    hold.waiters.add(() => woken++);
    await routes.switchUpstream('p1', null, null);
    expect({ asleep: routes.isAsleep('p1'), hold: entry.hold, woken }).toEqual({ asleep: true, hold, woken: 0 });
    // The release pipeline's hold takes the waiting requests over.
    await routes.hold('p1', 5_000);
    expect(entry.hold).not.toBe(hold);
    expect(entry.hold!.waiters.size).toBe(1);
    await routes.switchUpstream('p1', up(4001), 'r1');
    expect({ asleep: routes.isAsleep('p1'), hold: entry.hold, woken }).toEqual({ asleep: false, hold: null, woken: 1 });
    routes.setAsleep('p1', true);
    routes.removeProject('p1');
    expect(routes.isAsleep('p1')).toBe(false);
    expect(entry.asleep).toBe(false);
    await tick();
    expect(wakes).toEqual(['p1']);
  });

  it('clearing asleep without a target ends the wake hold (its requests get the plain 503)', () => {
    const { routes } = asleepTable();
    const entry = routes.get('p1')!;
    const hold = routes.wakeHold(entry)!;
    let woken = 0;
    hold.waiters.add(() => woken++);
    routes.setAsleep('p1', false);
    expect({ hold: entry.hold, expired: hold.expired, woken }).toEqual({ hold: null, expired: false, woken: 1 });
    expect(routes.wakeHold(entry)).toBeNull();
  });

  it('travels to a follower: exported, applied, and a follower copy keeps its own wake hold until the control plane answers', async () => {
    const { routes } = asleepTable();
    const changed: string[] = [];
    routes.follow({ changed: (id) => changed.push(id), removed: () => undefined, drain: async () => true });
    routes.setAsleep('p1', false);
    routes.setAsleep('p1', true);
    expect(changed).toEqual(['p1', 'p1']);
    const ids = new Map<UpstreamTarget, string>();
    const idOf = (t: UpstreamTarget) => ids.get(t) ?? (ids.set(t, `t${ids.size}`), `t${ids.size - 1}`);
    const state = routes.exportRoute('p1', idOf)!;
    expect(state).toMatchObject({ asleep: true, target: null, holdUntil: null });

    const copy = new RouteTable({ wakeHoldMs: 60_000 });
    const copyWakes: string[] = [];
    copy.onWake((projectId) => copyWakes.push(projectId));
    const resolve = (): never => {
      throw new Error('no target in these states');
    };
    copy.applyRoute(state, resolve);
    expect(copy.isAsleep('p1')).toBe(true);
    const entry = copy.get('p1')!;
    const local = copy.wakeHold(entry)!;
    let woken = 0;
    local.waiters.add(() => woken++);
    await tick();
    expect(copyWakes).toEqual(['p1']);
    // Another change of the route (still asleep, no hold there): the copy's hold stays.
    copy.applyRoute({ ...state, generation: state.generation + 1 }, resolve);
    expect(entry.hold).toBe(local);
    // The control plane holds too: same waiting requests, its bound.
    routes.wake('p1');
    const held = routes.exportRoute('p1', idOf)!;
    expect(held.holdUntil).toBeGreaterThan(Date.now());
    copy.applyRoute(held, resolve);
    expect({ until: entry.hold!.until, waiters: entry.hold!.waiters.size, woken }).toEqual({ until: held.holdUntil, waiters: 1, woken: 0 });
    // Awake without a target: the plain 503 for them.
    routes.setAsleep('p1', false);
    copy.applyRoute(routes.exportRoute('p1', idOf)!, resolve);
    expect({ asleep: copy.isAsleep('p1'), hold: entry.hold, woken }).toEqual({ asleep: false, hold: null, woken: 1 });
  });
});
