// Every console page: path pattern, whether it needs a session, and what renders it.
import type { ComponentChildren } from 'preact';
import { AuditPage } from './pages/audit.js';
import { DashboardPage } from './pages/dashboard.js';
import { DeviceLoginPage } from './pages/device-login.js';
import { NewProjectPage } from './pages/new-project.js';
import { OperationsPage } from './pages/operations.js';
import { OrgPage } from './pages/org.js';
import { OrgsPage } from './pages/orgs.js';
import { ProjectActivityPage } from './pages/project-activity.js';
import { ProjectBackupsPage } from './pages/project-backups.js';
import { ProjectCanaryPage } from './pages/project-canary.js';
import { ProjectDomainsPage } from './pages/project-domains.js';
import { ProjectGithubPage } from './pages/project-github.js';
import { ProjectLogsPage } from './pages/project-logs.js';
import { ProjectOverviewPage } from './pages/project-overview.js';
import { ProjectRecoveryPage } from './pages/project-recovery.js';
import { ProjectReleasesPage } from './pages/project-releases.js';
import { ProjectSecretsPage } from './pages/project-secrets.js';
import { ProjectSettingsPage } from './pages/project-settings.js';
import { SignInPage } from './pages/sign-in.js';
import { SignUpPage } from './pages/sign-up.js';
import { TokensPage } from './pages/tokens.js';

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
