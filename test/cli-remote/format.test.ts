import { describe, expect, it } from 'vitest';
import { formatTable, printable } from '../../cli/format-table.js';
import { parsePermissions } from '../../cli/commands/tokens.js';
import { parseLimit } from '../../cli/commands/activity.js';

describe('pure helpers of the remote commands', () => {
  it('aligns columns and strips terminal escapes from server text', () => {
    expect(
      formatTable(
        ['id', 'name'],
        [
          ['p_1', 'Shop'],
          ['p_22', null],
        ],
      ),
    ).toEqual(['ID    NAME', 'p_1   Shop', 'p_22  -']);
    expect(printable('evil\u001b[2Jname\r\n')).toBe('evil[2Jname');
  });
  it('parses repeatable and comma-separated permissions, rejecting unknown ones', () => {
    expect(parsePermissions(['deploy', 'read,deploy'])).toEqual(['deploy', 'read']);
    expect(() => parsePermissions([])).toThrow(expect.objectContaining({ code: 'SVC_USAGE' }));
    expect(() => parsePermissions(['sudo'])).toThrow(expect.objectContaining({ code: 'SVC_USAGE' }));
  });
  it('bounds --limit', () => {
    expect(parseLimit(undefined)).toBeUndefined();
    expect(parseLimit('20')).toBe(20);
    for (const bad of ['0', '1.5', 'x', '100000']) expect(() => parseLimit(bad)).toThrow(expect.objectContaining({ code: 'SVC_USAGE' }));
  });
});
