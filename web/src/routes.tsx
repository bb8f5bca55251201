// Every console page: path pattern, whether it needs a session, and what renders it.
import type { ComponentChildren } from 'preact';
import { lazyPage } from './lazy-page.js';
import { DashboardPage } from './pages/dashboard.js';
import { ProjectOverviewPage } from './pages/project-overview.js';
import { SignInPage } from './pages/sign-in.js';
import { SignUpPage } from './pages/sign-up.js';

// Pages beyond sign-in, the dashboard and the project overview load on first visit (see lazy-page.tsx).
const AuditPage = lazyPage(() => import('./pages/audit.js').then((m) => m.AuditPage));
const DeviceLoginPage = lazyPage(() => import('./pages/device-login.js').then((m) => m.DeviceLoginPage));
const NewProjectPage = lazyPage(() => import('./pages/new-project.js').then((m) => m.NewProjectPage));
const OperationsPage = lazyPage(() => import('./pages/operations.js').then((m) => m.OperationsPage));
const OrgPage = lazyPage(() => import('./pages/org.js').then((m) => m.OrgPage));
const OrgsPage = lazyPage(() => import('./pages/orgs.js').then((m) => m.OrgsPage));
const ProjectActivityPage = lazyPage(() => import('./pages/project-activity.js').then((m) => m.ProjectActivityPage));
const ProjectBackupsPage = lazyPage(() => import('./pages/project-backups.js').then((m) => m.ProjectBackupsPage));
const ProjectCanaryPage = lazyPage(() => import('./pages/project-canary.js').then((m) => m.ProjectCanaryPage));
const ProjectDomainsPage = lazyPage(() => import('./pages/project-domains.js').then((m) => m.ProjectDomainsPage));
const ProjectGithubPage = lazyPage(() => import('./pages/project-github.js').then((m) => m.ProjectGithubPage));
const ProjectLogsPage = lazyPage(() => import('./pages/project-logs.js').then((m) => m.ProjectLogsPage));
const ProjectRecoveryPage = lazyPage(() => import('./pages/project-recovery.js').then((m) => m.ProjectRecoveryPage));
const ProjectReleasesPage = lazyPage(() => import('./pages/project-releases.js').then((m) => m.ProjectReleasesPage));
const ProjectSecretsPage = lazyPage(() => import('./pages/project-secrets.js').then((m) => m.ProjectSecretsPage));
const ProjectSettingsPage = lazyPage(() => import('./pages/project-settings.js').then((m) => m.ProjectSettingsPage));
const TokensPage = lazyPage(() => import('./pages/tokens.js').then((m) => m.TokensPage));

export interface RouteDef {
  pattern: string;
  auth: boolean;
  render(params: Record<string, string>): ComponentChildren;
}

const slug = (p: Record<string, string>) => p.slug ?? '';

export const routes: RouteDef[] = [
  { pattern: '/sign-in', auth: false, render: () => <SignInPage /> },
  { pattern: '/sign-up', auth: false, render: () => <SignUpPage /> },
  { pattern: '/', auth: true, render: () => <DashboardPage /> },
  { pattern: '/new-project', auth: true, render: () => <NewProjectPage /> },
  { pattern: '/device-login', auth: true, render: () => <DeviceLoginPage /> },
  { pattern: '/audit', auth: true, render: () => <AuditPage /> },
  { pattern: '/tokens', auth: true, render: () => <TokensPage /> },
  { pattern: '/operations', auth: true, render: () => <OperationsPage /> },
  { pattern: '/orgs', auth: true, render: () => <OrgsPage /> },
  { pattern: '/orgs/:slug', auth: true, render: (p) => <OrgPage key={slug(p)} slug={slug(p)} /> },
  { pattern: '/projects/:slug', auth: true, render: (p) => <ProjectOverviewPage key={slug(p)} slug={slug(p)} /> },
  { pattern: '/projects/:slug/releases', auth: true, render: (p) => <ProjectReleasesPage key={slug(p)} slug={slug(p)} /> },
  { pattern: '/projects/:slug/canary', auth: true, render: (p) => <ProjectCanaryPage key={slug(p)} slug={slug(p)} /> },
  { pattern: '/projects/:slug/logs', auth: true, render: (p) => <ProjectLogsPage key={slug(p)} slug={slug(p)} /> },
  { pattern: '/projects/:slug/secrets', auth: true, render: (p) => <ProjectSecretsPage key={slug(p)} slug={slug(p)} /> },
  { pattern: '/projects/:slug/backups', auth: true, render: (p) => <ProjectBackupsPage key={slug(p)} slug={slug(p)} /> },
  { pattern: '/projects/:slug/domains', auth: true, render: (p) => <ProjectDomainsPage key={slug(p)} slug={slug(p)} /> },
  { pattern: '/projects/:slug/github', auth: true, render: (p) => <ProjectGithubPage key={slug(p)} slug={slug(p)} /> },
  { pattern: '/projects/:slug/recovery', auth: true, render: (p) => <ProjectRecoveryPage key={slug(p)} slug={slug(p)} /> },
  { pattern: '/projects/:slug/activity', auth: true, render: (p) => <ProjectActivityPage key={slug(p)} slug={slug(p)} /> },
  { pattern: '/projects/:slug/settings', auth: true, render: (p) => <ProjectSettingsPage key={slug(p)} slug={slug(p)} /> },
];
