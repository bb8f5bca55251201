// The pure parts of `svc whoami`, `svc open` and `svc usage`: which URL is opened, the opener argv
// per platform, and the words of usage (shared with the console) and of whoami.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserOpener } from '../../cli/browser-opener.js';
import { consolePages, openUrl, parseOpenTarget } from '../../cli/commands/open.js';
import { quotaWarnings, usageLines, usageSection } from '../../cli/commands/usage.js';
import { whoamiLines, type WhoamiDocument } from '../../cli/commands/whoami.js';
import { relativeTime } from '../../cli/relative-time.js';
import type { UsageResponse } from '../../src/ops/contract.js';
import { repoRoot } from '../support/repo-root.js';

const project = { slug: 'shop', status: { state: 'active', activeReleaseId: 'rel_1', url: 'http://shop.localhost:7070' } };
const SERVER = 'https://svc.example.com';

describe('svc open: the URL', () => {
  it('opens the app by default and the console page with --console or a page name', () => {
    expect(openUrl(parseOpenTarget(undefined, undefined), project, SERVER)).toBe('http://shop.localhost:7070');
    expect(openUrl(parseOpenTarget(undefined, true), project, SERVER)).toBe('https://svc.example.com/projects/shop');
    expect(openUrl(parseOpenTarget('releases', undefined), project, SERVER)).toBe('https://svc.example.com/projects/shop/releases');
    expect(openUrl(parseOpenTarget('Logs', true), project, SERVER)).toBe('https://svc.example.com/projects/shop/logs');
    expect(openUrl(parseOpenTarget('overview', undefined), project, SERVER)).toBe('https://svc.example.com/projects/shop');
  });

  it('refuses an unknown page with SVC_USAGE naming the choices', () => {
    expect(() => parseOpenTarget('billing', undefined)).toThrow(expect.objectContaining({ code: 'SVC_USAGE', message: expect.stringContaining('releases') }));
  });

  it('knows exactly the project pages the console routes', async () => {
    const routes = await readFile(join(repoRoot, 'web', 'src', 'routes.tsx'), 'utf8');
    const routed = [...routes.matchAll(/pattern: '\/projects\/:slug(?:\/([a-z-]+))?'/g)].map((m) => m[1] ?? 'overview');
    expect([...consolePages].sort()).toEqual(routed.sort());
  });
});

describe('svc open: the opener argv', () => {
  const url = 'https://svc.example.com/projects/shop?a=1&b=2';
  const env = { PATH: '/usr/bin', DISPLAY: ':0', SVC_TOKEN: 'svc_secret', HOME: '/home/ana' };

  it('xdg-open on Linux with a graphical session, with the CLI env less the token', () => {
    expect(browserOpener(url, 'linux', env)).toEqual({
      file: 'xdg-open',
      args: [url],
      env: { PATH: '/usr/bin', DISPLAY: ':0', HOME: '/home/ana' },
      replaceEnv: true,
    });
    expect(browserOpener(url, 'freebsd', { WAYLAND_DISPLAY: 'wayland-0' })).toMatchObject({ file: 'xdg-open', args: [url] });
  });

  it('open on macOS, the URL handler on Windows, $BROWSER when set', () => {
    expect(browserOpener(url, 'darwin', {})).toMatchObject({ file: 'open', args: [url] });
    expect(browserOpener(url, 'win32', {})).toMatchObject({ file: 'rundll32', args: ['url.dll,FileProtocolHandler', url] });
    expect(browserOpener(url, 'linux', { BROWSER: 'w3m' })).toMatchObject({ file: 'w3m', args: [url] });
  });

  it('no opener without a graphical session on Linux, nor for a non-web URL', () => {
    expect(browserOpener(url, 'linux', { PATH: '/usr/bin' })).toEqual({ reason: expect.stringContaining('DISPLAY') });
    expect(browserOpener('file:///etc/passwd', 'darwin', {})).toEqual({ reason: expect.stringContaining('not an http(s) URL') });
    expect(browserOpener('javascript:alert(1)', 'linux', env)).toHaveProperty('reason');
  });
});

const HOUR = 3_600_000;
const START = Date.UTC(2026, 10, 1);
const END = Date.UTC(2026, 11, 1);

function usageDoc(requests: number, quota: number | null, forecast: Partial<UsageResponse['forecast']['requests']> = {}): UsageResponse {
  const base = {
    status: 'ok' as const,
    observationMs: 10 * HOUR,
    averageRatePerHour: 1,
    projectedPeriodTotal: requests,
    estimatedExhaustionAt: null,
    warning: false,
  };
  return {
    usage: { requests, transferBytes: 1536, period: { start: START, end: END }, quota: { requests: quota, transferBytes: null } },
    forecast: { requests: { ...base, ...forecast }, transferBytes: { ...base, status: 'insufficient-evidence', projectedPeriodTotal: 1536 } },
  };
}

describe('svc usage: text', () => {
  it('a table per scope with the console’s words for quota and forecast', () => {
    const lines = usageSection('Project shop', usageDoc(120, 1000, { projectedPeriodTotal: 480.4 }));
    expect(lines[0]).toBe('Project shop: 2026-11-01 to 2026-11-30 (UTC month)');
    expect(lines[1]).toMatch(/^QUANTITY\s+SO FAR\s+QUOTA\s+FORECAST\s+EXHAUSTED AT$/);
    expect(lines[2]).toMatch(/^requests\s+120\s+1000\s+projected 480 this month\s+-$/);
    expect(lines[3]).toMatch(/^transfer\s+1\.5 KiB\s+no quota\s+insufficient evidence \(under an hour of data\)\s+-$/);
    expect(lines.at(-1)).toBe('Within quota.');
  });

  it('warns when the quota is reached, projected to be reached, or near', () => {
    const at = Date.UTC(2026, 10, 20, 8, 30);
    expect(quotaWarnings(usageDoc(1000, 1000, { warning: true, estimatedExhaustionAt: at }))).toEqual([
      'requests: quota reached at 2026-11-20 08:30 UTC (1000 of 1000)',
    ]);
    expect(quotaWarnings(usageDoc(500, 1000, { warning: true, projectedPeriodTotal: 1500, estimatedExhaustionAt: at }))).toEqual([
      'requests: projected to reach the quota at 2026-11-20 08:30 UTC (500 so far of 1000)',
    ]);
    expect(quotaWarnings(usageDoc(850, 1000, { warning: true, status: 'insufficient-evidence' }))).toEqual(['requests: near the quota (850 so far of 1000)']);
    expect(quotaWarnings(usageDoc(10, 1000))).toEqual([]);
  });

  it('the workspace lists its projects and says why it is missing when implied', () => {
    const ws = {
      ...usageDoc(3, null),
      organizationId: 'org_1',
      projects: [{ projectId: 'p1', slug: 'shop', requests: 3, transferBytes: 2048 }],
      truncated: false,
    };
    const lines = usageLines({ project: null, workspace: { id: 'acme', usage: ws }, workspaceError: null });
    expect(lines[0]).toMatch(/^Workspace acme: /);
    expect(lines.slice(-2)).toEqual([expect.stringMatching(/^PROJECT\s+REQUESTS\s+TRANSFER$/), expect.stringMatching(/^shop\s+3\s+2\.0 KiB$/)]);
    const implied = usageLines({
      project: { id: 'p1', slug: 'shop', usage: usageDoc(1, null) },
      workspace: null,
      workspaceError: { code: 'SVC_FORBIDDEN', message: 'no' },
    });
    expect(implied.at(-1)).toBe('Workspace usage not shown: SVC_FORBIDDEN: no');
  });
});

describe('svc whoami: text', () => {
  const now = Date.UTC(2026, 10, 26, 12);
  const doc: WhoamiDocument = {
    server: 'https://svc.example.com',
    source: { server: 'config', token: 'env' },
    user: { id: 'u1', email: 'ana@example.com', name: 'Ana\u001b[2J', createdAt: '2026-01-01T00:00:00.000Z' },
    organizations: [{ id: 'o1', name: 'Ana', slug: 'ana', role: 'owner', createdAt: '2026-01-01T00:00:00.000Z' }],
    token: {
      id: 'tok_1',
      name: 'ci',
      projectId: 'p1',
      parentId: null,
      permissions: ['read', 'deploy'],
      status: 'active',
      createdAt: '2026-11-01T00:00:00.000Z',
      expiresAt: '2026-12-06T12:00:00.000Z',
      lastUsedAt: null,
      revokedAt: null,
    },
    project: { id: 'p1', slug: 'shop', name: 'Shop' },
  };

  it('one labelled line per fact, server text made printable', () => {
    expect(whoamiLines(doc, now)).toEqual([
      'Server         https://svc.example.com (stored login)',
      'Account        ana@example.com (Ana[2J)',
      'Token          tok_1 "ci" (environment)',
      'Scope          project shop (p1)',
      'Permissions    read, deploy',
      'Expires        2026-12-06T12:00:00.000Z (in 10 d)',
      'Organizations  ana (owner)',
    ]);
    expect(whoamiLines({ ...doc, project: null }, now)[3]).toBe('Scope          all projects (account-wide)');
  });

  it('relative times', () => {
    expect(relativeTime(now + 90 * 60_000, now)).toBe('in 1 h');
    expect(relativeTime(now - 5 * 60_000, now)).toBe('5 min ago');
    expect(relativeTime(now + 3 * 86_400_000, now)).toBe('in 3 d');
  });
});
