// Which swarm node a project goes to on its first deploy (its volume, every task and job stay there
// afterwards). Nodes labelled `svc.apps=true` (a node spec label, `docker node update --label-add`)
// are the app nodes when any exists; otherwise the managers take apps. Among the ready, active nodes
// with an address, the one holding the fewest svc projects wins; ties go by id, so the choice is
// stable. Pure.
import type { SwarmNodeInfo } from './engine-client.js';

/** The node spec label that marks the nodes svc places projects on. */
export const APPS_NODE_LABEL = 'svc.apps';

/** Nodes a new project may go to: labelled app nodes if there are any, else managers. */
export function appNodes(nodes: readonly SwarmNodeInfo[]): SwarmNodeInfo[] {
  const usable = nodes.filter((n) => n.state === 'ready' && n.availability === 'active' && n.address !== '');
  const labelled = usable.filter((n) => n.labels[APPS_NODE_LABEL] === 'true');
  return labelled.length > 0 ? labelled : usable.filter((n) => n.role === 'manager');
}

/** The node for a new project, given how many projects each node holds; undefined when none fits. */
export function chooseProjectNode(nodes: readonly SwarmNodeInfo[], projectsOn: ReadonlyMap<string, number>): SwarmNodeInfo | undefined {
  return appNodes(nodes).sort((a, b) => (projectsOn.get(a.id) ?? 0) - (projectsOn.get(b.id) ?? 0) || a.id.localeCompare(b.id))[0];
}

/** Projects per node, from each project's node (the project's service constraint or its recorded choice). */
export function countProjects(nodeOfProject: ReadonlyMap<string, string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const node of nodeOfProject.values()) counts.set(node, (counts.get(node) ?? 0) + 1);
  return counts;
}
