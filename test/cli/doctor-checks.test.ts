import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { checkNodeVersion, migrationNameProblems, MINIMUM_NODE } from '../../cli/doctor-checks.js';
import { repoRoot } from '../support/repo-root.js';

describe('doctor pure checks', () => {
  it('compares Node versions numerically', () => {
    expect(checkNodeVersion('v20.19.0').status).toBe('pass');
    expect(checkNodeVersion('v22.1.0').status).toBe('pass');
    expect(checkNodeVersion('v20.18.9').status).toBe('fail');
    expect(checkNodeVersion('v18.20.0')).toMatchObject({ status: 'fail', hint: expect.stringContaining('20.19.0') });
    expect(checkNodeVersion('v20.9.0').status).toBe('fail');
    expect(checkNodeVersion('v24.0.0-nightly20250101').status).toBe('pass');
    expect(checkNodeVersion('not a version').status).toBe('fail');
  });

  it('asks for the oldest Node.js package.json engines allows', () => {
    const engines = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    expect(semver.minVersion(engines)?.version).toBe(MINIMUM_NODE);
  });

  it('accepts well-named migrations and reports every naming problem', () => {
    expect(migrationNameProblems(['0001_init.sql', '0002_add_done.sql'])).toEqual({ errors: [], warnings: [] });
    const bad = migrationNameProblems(['0001_init.sql', '001_again.sql', 'init.sql', 'notes.txt']);
    expect(bad.errors).toEqual(['0001_init.sql and 001_again.sql share version 1', 'init.sql does not match <number>_<name>.sql']);
    expect(bad.warnings).toEqual(['notes.txt is not a .sql file and is ignored', expect.stringContaining('different widths')]);
  });
});
