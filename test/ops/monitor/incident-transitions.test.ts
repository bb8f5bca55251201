import { describe, expect, it } from 'vitest';
import { planIncidentTransitions, type Condition, type OpenIncident } from '../../../src/ops/monitor/incident-transitions.js';

// Every combination, per key, of: incident open or not × condition active or not × project scanned or not
// (three keys with distinct projects → 8^3 = 512 cases), checked against the rule stated plainly.
describe('planIncidentTransitions (exhaustive)', () => {
  const keys = ['deployment.failed:p1', 'backup.overdue:p2', 'deployment.failed:p3'];
  const projectOf = (k: string) => k.split(':')[1]!;

  it('opens exactly the active conditions without an incident and resolves exactly the scanned, inactive open ones', () => {
    let cases = 0;
    for (let mask = 0; mask < 8 ** keys.length; mask++) {
      const open: OpenIncident[] = [];
      const active: Condition[] = [];
      const scanned = new Set<string>();
      keys.forEach((key, i) => {
        const bits = Math.floor(mask / 8 ** i) % 8;
        if (bits & 1) open.push({ id: `inc_${i}`, key, projectId: projectOf(key) });
        if (bits & 2) active.push({ key, kind: key.split(':')[0]!, projectId: projectOf(key), details: {} });
        if (bits & 4) scanned.add(projectOf(key));
      });
      const plan = planIncidentTransitions(open, active, scanned);
      const expectOpen = keys.filter((k, i) => ((Math.floor(mask / 8 ** i) % 8) & 3) === 2);
      const expectResolve = keys.filter((k, i) => ((Math.floor(mask / 8 ** i) % 8) & 7) === 5);
      expect(plan.open.map((c) => c.key)).toEqual(expectOpen);
      expect(plan.resolve.map((i) => i.key)).toEqual(expectResolve);
      cases++;
    }
    expect(cases).toBe(512);
  });

  it('opens one incident for duplicate conditions, and platform-wide incidents are always in scope', () => {
    const c: Condition = { key: 'x:p1', kind: 'x', projectId: 'p1', details: {} };
    expect(planIncidentTransitions([], [c, { ...c }], new Set(['p1'])).open).toHaveLength(1);
    const platformWide: OpenIncident = { id: 'inc_1', key: 'platform', projectId: null };
    expect(planIncidentTransitions([platformWide], [], new Set()).resolve).toEqual([platformWide]);
  });
});
