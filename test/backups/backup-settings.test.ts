// The backup settings: defaults when unset, the values given, and an invalid value refused with the
// platform's configuration code (which stops start-up with exit 2) instead of a silent default.
import { describe, expect, it } from 'vitest';
import { readBackupSettings } from '../../src/backups/backup-settings.js';
import { isSvcError } from '../../src/core/errors.js';
import { platformStartExitStatus } from '../../src/core/exit-status.js';

describe('readBackupSettings', () => {
  it('applies the documented defaults and reads given values', () => {
    expect(readBackupSettings({})).toEqual({ lockWaitMs: 600_000, tickMs: 60_000 });
    expect(readBackupSettings({ SVC_BACKUP_LOCK_WAIT_MS: '0', SVC_BACKUP_TICK_MS: '250', SVC_BACKUP_OTHER: 'x' })).toEqual({ lockWaitMs: 0, tickMs: 250 });
  });

  it.each([
    ['SVC_BACKUP_TICK_MS', '0'],
    ['SVC_BACKUP_TICK_MS', 'soon'],
    ['SVC_BACKUP_LOCK_WAIT_MS', '-1'],
    ['SVC_BACKUP_LOCK_WAIT_MS', '1.5'],
  ])('refuses %s=%s with SVC_PLATFORM_CONFIG_INVALID naming it', (name, value) => {
    let caught: unknown;
    try {
      readBackupSettings({ [name]: value });
    } catch (error) {
      caught = error;
    }
    expect(isSvcError(caught, 'SVC_PLATFORM_CONFIG_INVALID')).toBe(true);
    expect((caught as Error).message).toContain(name);
    expect(platformStartExitStatus(caught)).toBe(2);
  });
});
