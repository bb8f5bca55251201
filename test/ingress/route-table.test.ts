// Route table without sockets: atomic switches, in-flight counting, draining and retirement.
import { describe, expect, it } from 'vitest';
import { RouteTable, routesToCandidate, type UpstreamTarget } from '../../src/ingress/route-table.js';

const up = (port: number) => ({ host: '127.0.0.1', port });

describe('RouteTable', () => {
  it('matches hosts to entries and caches, invalidating on changes', () => {
    const routes = new RouteTable();
    routes.setProject({ id: 'p1', slug: 'shop' }, up(4001), 'r1');
    const entry = routes.match('shop.localhost:7070');
    expect(entry?.projectId).toBe('p1');
    expect(routes.match('SHOP.localhost')).toBe(entry);
    expect(routes.match('other.localhost')).toBeNull();
    expect(routes.match('127.0.0.1:7070')).toBeNull();
    routes.addDomain('p1', 'shop.example.com');
    expect(routes.match('shop.example.com')).toBe(entry);
    routes.removeDomain('shop.example.com');
    expect(routes.match('shop.example.com')).toBeNull();
    routes.setProject({ id: 'p1', slug: 'store' }, up(4001), 'r1');
    expect(routes.match('shop.localhost')).toBeNull();
    expect(routes.match('store.localhost')?.projectId).toBe('p1');
  });

  it('finds projects lazily by slug (no active release yet) and does not cache unknown slugs', () => {
    const known = new Map<string, { id: string; slug: string }>();
    const routes = new RouteTable({ lookupProject: (s) => known.get(s) ?? [...known.values()].find((p) => p.id === s) });
    expect(routes.match('late.localhost')).toBeNull();
    known.set('late', { id: 'p9', slug: 'late' });
    const entry = routes.match('late.localhost');
    expect(entry?.projectId).toBe('p9');
    expect(entry?.target).toBeNull();
  });

  it('switches atomically: the previous target keeps its in-flight requests and drains', async () => {
    const retired: UpstreamTarget[] = [];
    const routes = new RouteTable({ onRetired: (t) => retired.push(t) });
    routes.setProject({ id: 'p1', slug: 'shop' }, up(4001), 'r1');
    const entry = routes.get('p1')!;
    const t1 = routes.acquire(entry)!;
    const t1b = routes.acquire(entry)!;
    expect(t1).toBe(t1b);
    expect(t1.inFlight).toBe(2);
    const generation = entry.generation;

    const previous = await routes.switchUpstream('p1', up(4002), 'r2');
    expect(previous).toBe(t1);
    expect(entry.generation).toBe(generation + 1);
    const t2 = routes.acquire(entry)!;
    expect(t2.port).toBe(4002);
    expect(t2.releaseId).toBe('r2');

    let drained = false;
    const draining = routes.drain(previous, 5_000).then((ok) => (drained = ok));
    routes.release(t1);
    await Promise.resolve();
    expect(drained).toBe(false);
    expect(retired).toEqual([]);
    routes.release(t1b);
    await draining;
    expect(drained).toBe(true);
    expect(retired).toEqual([t1]);
    // The new target is still routed: finishing its request does not retire it.
    routes.release(t2);
    expect(retired).toEqual([t1]);
  });

  it('retires an idle previous target at once and drains it immediately', async () => {
    const retired: UpstreamTarget[] = [];
    const routes = new RouteTable({ onRetired: (t) => retired.push(t) });
    routes.setProject({ id: 'p1', slug: 'shop' }, up(4001), 'r1');
    const previous = await routes.switchUpstream('p1', up(4001), 'r2');
    expect(retired).toEqual([previous]);
    expect(await routes.drain(previous, 1)).toBe(true);
    // Same host:port, new target: counts and connections are not shared with the old process.
    expect(routes.get('p1')!.target).not.toBe(previous);
  });

  it('drain resolves false after the timeout when requests stay in flight', async () => {
    const routes = new RouteTable();
    routes.setProject({ id: 'p1', slug: 'shop' }, up(4001), 'r1');
    const t = routes.acquire(routes.get('p1')!)!;
    const previous = routes.setProject({ id: 'p1', slug: 'shop' }, null, null);
    expect(previous).toBe(t);
    expect(await routes.drain(previous, 20)).toBe(false);
    expect(routes.acquire(routes.get('p1')!)).toBeNull();
  });

  it('probes the new upstream first and leaves the route unchanged when it fails', async () => {
    const routes = new RouteTable({
      probe: async (u) => {
        if (u.port === 4666) throw new Error('refused');
      },
    });
    routes.setProject({ id: 'p1', slug: 'shop' }, up(4001), 'r1');
    await expect(routes.switchUpstream('p1', up(4666), 'r2')).rejects.toMatchObject({ code: 'SVC_INGRESS_UPSTREAM_UNAVAILABLE' });
    expect(routes.get('p1')!.target!.port).toBe(4001);
    await expect(routes.switchUpstream('p1', { host: 'bad host', port: 1 }, 'r2')).rejects.toMatchObject({ code: 'SVC_INGRESS_UPSTREAM_INVALID' });
    await expect(routes.switchUpstream('p1', up(70000), 'r2')).rejects.toMatchObject({ code: 'SVC_INGRESS_UPSTREAM_INVALID' });
    await expect(routes.switchUpstream('nope', up(4002), 'r2')).rejects.toMatchObject({ code: 'SVC_PROJECT_NOT_FOUND' });
  });

  it('removeProject stops routing and returns the target to drain', () => {
    const routes = new RouteTable();
    routes.setProject({ id: 'p1', slug: 'shop' }, { host: '::1', port: 4001 }, 'r1');
    expect(routes.get('p1')!.target!.origin).toBe('http://[::1]:4001');
    expect(routes.list()).toEqual([
      {
        projectId: 'p1',
        slug: 'shop',
        hosts: ['shop.localhost'],
        upstream: { host: '::1', port: 4001 },
        releaseId: 'r1',
        generation: 1,
        inFlight: 0,
        liveStreams: 0,
      },
    ]);
    const previous = routes.removeProject('p1');
    expect(previous?.port).toBe(4001);
    expect(routes.match('shop.localhost')).toBeNull();
  });
});

describe('canary seam', () => {
  it('assigns exactly `percent` of every 100-request cycle to the candidate, spread evenly', () => {
    for (const percent of [0, 1, 5, 10, 33, 50, 99, 100]) {
      const picks = Array.from({ length: 100 }, (_, p) => routesToCandidate(p, percent));
      expect(picks.filter(Boolean).length, `${percent}`).toBe(percent);
    }
    const ten = Array.from({ length: 100 }, (_, p) => (routesToCandidate(p, 10) ? p : -1)).filter((p) => p >= 0);
    expect(ten).toEqual([9, 19, 29, 39, 49, 59, 69, 79, 89, 99]);
  });

  it('acquire follows the cycle when a canary route is set', () => {
    const routes = new RouteTable();
    routes.setProject({ id: 'p1', slug: 'shop' }, up(4001), 'r1');
    const entry = routes.get('p1')!;
    const candidate = { ...entry.target!, port: 4002, releaseId: 'r2', inFlight: 0 };
    entry.canary = { target: candidate, percent: 20, position: 0 };
    const ports = Array.from({ length: 200 }, () => routes.acquire(entry)!.port);
    expect(ports.filter((p) => p === 4002)).toHaveLength(40);
    expect(candidate.inFlight).toBe(40);
  });
});
