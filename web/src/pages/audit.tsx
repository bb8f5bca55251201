// Workspace activity: the audit feed of the organizations where your role permits `audit`.
import { useMemo, useState } from 'preact/hooks';
import { auditRoutes } from '../../../src/audit/contract.js';
import { dashboardResponseSchema, projectRoutes } from '../../../src/projects/contract.js';
import { AuditFeed } from '../components/audit-feed.js';
import { useTitle } from '../components/layout.js';
import { SelectField } from '../components/select-field.js';
import { useApi } from '../lib/use-api.js';

/** /audit */
export function AuditPage() {
  useTitle('Activity');
  const dashboard = useApi(projectRoutes.dashboard, dashboardResponseSchema);
  const [org, setOrg] = useState('');
  const names = useMemo(() => new Map((dashboard.data?.organizations ?? []).flatMap((o) => o.projects.map((p) => [p.id, p.slug] as const))), [dashboard.data]);
  const orgs = (dashboard.data?.organizations ?? []).filter((o) => o.role !== 'viewer');
  return (
    <>
      <div class="page-head">
        <h1>Activity</h1>
        {orgs.length > 1 ? (
          <SelectField
            id="audit-org"
            label="Organization"
            inline
            value={org}
            options={[{ value: '', label: 'All' }, ...orgs.map((o) => ({ value: o.id, label: o.name }))]}
            onChange={setOrg}
          />
        ) : null}
      </div>
      <p class="muted">
        Deploys, failed releases, rollbacks, backups, domains, access tokens, secret-name changes, members and projects, newest first. Deleted projects stay in
        this history.
      </p>
      <AuditFeed path={auditRoutes.feed} query={{ organizationId: org || undefined }} projectSlugs={names} />
    </>
  );
}
