// installation and installation_repositories events keep the registry current; links read it to
// tell whether they still work (see link-store.ts linkProblem).
import type { FeatureContext } from '../core/feature-context.js';
import { addInstallationRepos, removeInstallationRepos, replaceInstallationRepos, setInstallationStatus, upsertInstallation } from './installation-store.js';

interface Repo {
  id: number;
  full_name: string;
}

export interface InstallationPayload {
  action: string;
  installation: { id: number; account: { login: string; type?: string } | null; repository_selection?: string; suspended_at?: string | null };
  repositories?: Repo[];
}

export interface InstallationReposPayload {
  action: string;
  installation: InstallationPayload['installation'];
  repository_selection?: string;
  repositories_added: Repo[];
  repositories_removed: { id: number; full_name?: string }[];
}

function upsert(ctx: FeatureContext, installation: InstallationPayload['installation'], status: 'active' | 'suspended' | 'deleted'): void {
  upsertInstallation(ctx, {
    id: installation.id,
    accountLogin: installation.account?.login ?? 'unknown',
    accountType: installation.account?.type ?? null,
    status,
    repositorySelection: installation.repository_selection ?? null,
  });
}

/** Apply an `installation` event. */
export function handleInstallation(ctx: FeatureContext, payload: InstallationPayload): string {
  const { installation } = payload;
  ctx.db
    .transaction(() => {
      switch (payload.action) {
        case 'created':
          upsert(ctx, installation, 'active');
          replaceInstallationRepos(ctx, installation.id, payload.repositories ?? []);
          break;
        case 'deleted':
          upsert(ctx, installation, 'deleted');
          break;
        case 'suspend':
          upsert(ctx, installation, 'suspended');
          break;
        case 'unsuspend':
        case 'new_permissions_accepted':
          upsert(ctx, installation, installation.suspended_at ? 'suspended' : 'active');
          if (payload.repositories) addInstallationRepos(ctx, installation.id, payload.repositories);
          break;
        default:
          setInstallationStatus(ctx, installation.id, 'active');
      }
    })
    .immediate();
  return payload.action;
}

/** Apply an `installation_repositories` event (added / removed). */
export function handleInstallationRepos(ctx: FeatureContext, payload: InstallationReposPayload): string {
  ctx.db
    .transaction(() => {
      upsert(
        ctx,
        { ...payload.installation, repository_selection: payload.repository_selection ?? payload.installation.repository_selection ?? 'selected' },
        payload.installation.suspended_at ? 'suspended' : 'active',
      );
      addInstallationRepos(ctx, payload.installation.id, payload.repositories_added);
      removeInstallationRepos(
        ctx,
        payload.installation.id,
        payload.repositories_removed.map((r) => r.id),
      );
    })
    .immediate();
  return payload.action;
}
