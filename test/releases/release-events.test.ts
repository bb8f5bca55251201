// The in-process hub of release steps: what a follower gets on connect (the steps so far), live
// steps after it, the end, and that finished releases are forgotten. No server, disk or real clock.
import { describe, expect, it } from 'vitest';
import { ReleaseEventHub } from '../../src/releases/release-events.js';

describe('ReleaseEventHub', () => {
  it('gives a follower the steps so far, then live steps, then the end', () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const hub = new ReleaseEventHub(() => now);
    const observer = hub.observer();
    observer.onPhase!({ id: 'rel_1', projectId: 'prj_1' }, 'extract', {});
    now += 1000;
    observer.onPhase!({ id: 'rel_1', projectId: 'prj_1' }, 'migrate', {});
    const seen: unknown[] = [];
    const follow = hub.follow('rel_1', (event) => seen.push(event));
    expect(follow.backlog).toEqual([
      { type: 'step', step: 'extract', at: '2030-01-01T00:00:00.000Z' },
      { type: 'step', step: 'migrate', at: '2030-01-01T00:00:01.000Z' },
    ]);
    now += 500;
    observer.onPhase!({ id: 'rel_1', projectId: 'prj_1' }, 'migrate', { applied: 1, done: true });
    observer.onPhase!({ id: 'rel_2', projectId: 'prj_2' }, 'extract', {}); // another release
    observer.onOutcome!({ id: 'rel_1', projectId: 'prj_1' });
    expect(seen).toEqual([{ type: 'step', step: 'migrate', at: '2030-01-01T00:00:01.500Z', details: { applied: 1, done: true } }, 'end']);
    // Finished: a new follower gets no backlog (it reads the final row instead).
    expect(hub.follow('rel_1', () => undefined).backlog).toBeNull();
    follow.stop();
  });

  it('ends a rollback target on its completion or failure, not its start', () => {
    const hub = new ReleaseEventHub();
    const observer = hub.observer();
    const rollback = { projectId: 'prj_1', releaseId: 'rel_1', fromReleaseId: 'rel_2', restoreData: false, actor: { type: 'token', id: 'tok_1' } };
    observer.onRollback!({ ...rollback, phase: 'start' });
    observer.onPhase!({ id: 'rel_1', projectId: 'prj_1' }, 'start', {});
    const seen: unknown[] = [];
    const follow = hub.follow('rel_1', (event) => seen.push(event));
    expect(follow.backlog).toHaveLength(1);
    observer.onRollback!({ ...rollback, phase: 'complete' });
    expect(seen).toEqual(['end']);
    expect(hub.follow('rel_1', () => undefined).backlog).toBeNull();
  });

  it('follows a rollback from its start and keeps its steps and outcome for a few minutes after', () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const hub = new ReleaseEventHub(() => now);
    const observer = hub.observer();
    const rollback = { projectId: 'prj_1', releaseId: 'rel_1', fromReleaseId: 'rel_2', restoreData: false, actor: { type: 'token', id: 'tok_1' } };
    observer.onRollback!({ ...rollback, phase: 'start' });
    // Started, no step yet: a follower already waits for its end.
    expect(hub.follow('rel_1', () => undefined).backlog).toEqual([]);
    observer.onPhase!({ id: 'rel_1', projectId: 'prj_1' }, 'health', {});
    observer.onRollback!({ ...rollback, phase: 'fail', error: { code: 'SVC_HEALTH_CHECK_FAILED', message: 'unhealthy' } });
    expect(hub.endedRollback('rel_1')).toEqual({
      steps: [{ type: 'step', step: 'health', at: '2030-01-01T00:00:00.000Z' }],
      outcome: { outcome: 'failed', error: { code: 'SVC_HEALTH_CHECK_FAILED', message: 'unhealthy' } },
    });
    expect(hub.endedRollback('rel_2')).toBeNull();
    // The next rollback to it forgets the last one's outcome.
    observer.onRollback!({ ...rollback, phase: 'start' });
    expect(hub.endedRollback('rel_1')).toBeNull();
    observer.onRollback!({ ...rollback, phase: 'complete' });
    expect(hub.endedRollback('rel_1')).toEqual({ steps: [], outcome: { outcome: 'complete' } });
    now += 5 * 60_000 + 1;
    expect(hub.endedRollback('rel_1')).toBeNull();
  });

  it('stops telling a follower once it stopped following', () => {
    const hub = new ReleaseEventHub();
    hub.record('rel_1', 'extract');
    const seen: unknown[] = [];
    const follow = hub.follow('rel_1', (event) => seen.push(event));
    follow.stop();
    hub.record('rel_1', 'migrate');
    hub.end('rel_1');
    expect(seen).toEqual([]);
  });
});
