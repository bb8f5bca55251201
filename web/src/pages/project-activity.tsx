// One project's audit history.
import { auditRoutes } from '../../../src/audit/contract.js';
import { routePath } from '../../../src/identity/contract.js';
import { AuditFeed } from '../components/audit-feed.js';
import { ProjectFrame } from '../components/project-frame.js';

/** /projects/:slug/activity */
export function ProjectActivityPage({ slug }: { slug: string }) {
  return (
    <ProjectFrame slug={slug} tab="activity">
      {(project) => (
        <section class="card" aria-labelledby="activity-title">
          <h2 id="activity-title">Activity</h2>
          <AuditFeed path={routePath(auditRoutes.projectFeed, { id: project.id })} projectSlug={project.slug} />
        </section>
      )}
    </ProjectFrame>
  );
}
