import { describe, expect, it } from 'vitest';
import { checkNodeVersion, migrationNameProblems } from '../../cli/doctor-checks.js';

describe('doctor pure checks', () => {
  it('compares Node versions numerically', () => {
    expect(checkNodeVersion('v20.19.0').status).toBe('pass');
    expect(checkNodeVersion('v22.1.0').status).toBe('pass');
    expect(checkNodeVersion('v20.18.9').status).toBe('fail');
    expect(checkNodeVersion('v18.20.0')).toMatchObject({ status: 'fail', hint: expect.stringContaining('20.19.0') });
    expect(checkNodeVersion('v20.9.0').status).toBe('fail');
  });

  it('accepts well-named migrations and reports every naming problem', () => {
    expect(migrationNameProblems(['0001_init.sql', '0002_add_done.sql'])).toEqual({ errors: [], warnings: [] });
    const bad = migrationNameProblems(['0001_init.sql', '001_again.sql', 'init.sql', 'notes.txt']);
    expect(bad.errors).toEqual(['0001_init.sql and 001_again.sql share version 1', 'init.sql does not match <number>_<name>.sql']);
    expect(bad.warnings).toEqual(['notes.txt is not a .sql file and is ignored', expect.stringContaining('different widths')]);
  });
});
