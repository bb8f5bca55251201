// A schedule outside the documented range is refused with the schedule's own code (docs/errors.md),
// whichever rule it breaks: a range the route's schema checks, or the age-versus-interval rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCodeFor, SvcError } from '../../src/core/errors.js';
import { createProject, register, startHarness, type Browser, type Harness } from '../platform/harness.js';

let harness: Harness;
let admin: Browser;
let url: string;

beforeAll(async () => {
  harness = await startHarness();
  admin = await register(harness.app, 'admin@example.com');
  const project = await createProject(harness.app, admin, { name: 'Shop', slug: 'shop' });
  url = `/api/projects/${project.id}/backup-schedule`;
}, 60_000);
afterAll(async () => harness?.close());

describe('backup schedule errors', () => {
  it.each([
    ['a 4-minute interval', { intervalMinutes: 4 }, 'intervalMinutes'],
    ['an interval over 30 days', { intervalMinutes: 30 * 24 * 60 + 1 }, 'intervalMinutes'],
    ['keep 0', { intervalMinutes: 60, keep: 0 }, 'keep'],
    ['a fractional interval', { intervalMinutes: 7.5 }, 'intervalMinutes'],
    ['a maximum age shorter than the interval', { intervalMinutes: 2 * 24 * 60, maxAgeDays: 1 }, 'maximum age'],
  ])('refuses %s with SVC_BACKUP_SCHEDULE_INVALID (HTTP 400, CLI exit 65)', async (_name, payload, named) => {
    const res = await harness.app.inject({ method: 'PUT', url, headers: admin.headers(), payload });
    expect(res.statusCode, res.body).toBe(400);
    const error = (res.json() as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('SVC_BACKUP_SCHEDULE_INVALID');
    expect(error.message).toContain(named);
    expect(exitCodeFor(new SvcError('SVC_BACKUP_SCHEDULE_INVALID'))).toBe(65);
  });

  it('keeps SVC_VALIDATION for a bad project id and accepts the smallest interval', async () => {
    const bad = await harness.app.inject({
      method: 'PUT',
      url: `/api/projects/${'x'.repeat(101)}/backup-schedule`,
      headers: admin.headers(),
      payload: { intervalMinutes: 5 },
    });
    expect(bad.json().error.code).toBe('SVC_VALIDATION');
    const ok = await harness.app.inject({ method: 'PUT', url, headers: admin.headers(), payload: { intervalMinutes: 5 } });
    expect(ok.statusCode, ok.body).toBe(200);
  });
});
