// Which node a new project goes to, pure: labelled app nodes before managers, only ready, active
// nodes with an address, the fewest projects first, ties by id.
import { describe, expect, it } from 'vitest';
import type { SwarmNodeInfo } from '../../../runner/swarm/engine-client.js';
import { appNodes, chooseProjectNode, countProjects } from '../../../runner/swarm/node-choice.js';

function node(id: string, options: Partial<SwarmNodeInfo> = {}): SwarmNodeInfo {
  return { id, address: `10.0.0.${id.length}`, hostname: id, role: 'worker', state: 'ready', availability: 'active', labels: {}, ...options };
}
const apps = { 'svc.apps': 'true' };

describe('chooseProjectNode', () => {
  it('takes a manager when no node is labelled svc.apps=true (workers are not for apps then)', () => {
    const nodes = [node('w1'), node('m2', { role: 'manager' }), node('m1', { role: 'manager' })];
    expect(chooseProjectNode(nodes, new Map())?.id).toBe('m1');
    expect(appNodes(nodes).map((n) => n.id)).toEqual(['m2', 'm1']);
  });

  it('takes only labelled nodes when there are any, managers included only when labelled', () => {
    const nodes = [
      node('m1', { role: 'manager' }),
      node('w1', { labels: apps }),
      node('w2', { labels: { 'svc.apps': 'false' } }),
      node('m2', { role: 'manager', labels: apps }),
    ];
    expect(appNodes(nodes).map((n) => n.id)).toEqual(['w1', 'm2']);
    expect(chooseProjectNode(nodes, new Map())?.id).toBe('m2');
  });

  it('takes the node holding the fewest projects, ties by id', () => {
    const nodes = [node('a', { labels: apps }), node('b', { labels: apps }), node('c', { labels: apps })];
    const placed = new Map([
      ['p1', 'a'],
      ['p2', 'a'],
      ['p3', 'b'],
      ['p4', 'c'],
      ['p5', 'gone'],
    ]);
    expect(countProjects(placed)).toEqual(
      new Map([
        ['a', 2],
        ['b', 1],
        ['c', 1],
        ['gone', 1],
      ]),
    );
    expect(chooseProjectNode(nodes, countProjects(placed))?.id).toBe('b');
    expect(
      chooseProjectNode(
        nodes,
        new Map([
          ['a', 1],
          ['b', 1],
          ['c', 0],
        ]),
      )?.id,
    ).toBe('c');
  });

  it('skips nodes that are down, drained, paused or without an address; none left is undefined', () => {
    const nodes = [
      node('a', { labels: apps, state: 'down' }),
      node('b', { labels: apps, availability: 'drain' }),
      node('c', { labels: apps, availability: 'pause' }),
      node('d', { labels: apps, address: '' }),
      node('m', { role: 'manager' }),
    ];
    expect(chooseProjectNode(nodes, new Map())?.id).toBe('m'); // no usable labelled node: managers again
    expect(chooseProjectNode([node('w')], new Map())).toBeUndefined();
  });
});
