// Control-database rows of custom domains (one project per domain: the primary key is the domain).
import type { Migration } from '../core/db-migrations.js';
import type { FeatureContext } from '../core/feature-context.js';
import { isoTime } from '../core/feature-context.js';
import { SvcError } from '../core/errors.js';
import type { Domain } from './domains-contract.js';

/** Custom domains; rows go with their project (ON DELETE CASCADE). */
export const domainsMigrations: readonly Migration[] = [
  {
    scope: 'domains',
    version: 1,
    name: 'custom domains',
    up(db) {
      db.exec(`
        CREATE TABLE project_domains (
          domain TEXT PRIMARY KEY,
          project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
          created_by TEXT, created_at INTEGER NOT NULL) STRICT;
        CREATE INDEX project_domains_project ON project_domains (project_id);`);
    },
  },
];

/** A project_domains row. */
export interface DomainRow {
  domain: string;
  project_id: string;
  created_by: string | null;
  created_at: number;
}

type Db = Pick<FeatureContext, 'db'>;

/** The row of a domain, whichever project holds it. */
export function findDomain(ctx: Db, domain: string): DomainRow | undefined {
  return ctx.db.prepare('SELECT * FROM project_domains WHERE domain = ?').get(domain) as DomainRow | undefined;
}

/** Domains of a project, sorted. */
export function listDomains(ctx: Db, projectId: string): DomainRow[] {
  return ctx.db.prepare('SELECT * FROM project_domains WHERE project_id = ? ORDER BY domain').all(projectId) as DomainRow[];
}

/** Every custom domain (loaded into the ingress at start). */
export function allDomains(ctx: Db): DomainRow[] {
  return ctx.db.prepare('SELECT * FROM project_domains ORDER BY domain').all() as DomainRow[];
}

/** Insert a domain row; the primary key refuses a domain another project holds (SVC_DOMAIN_TAKEN). */
export function insertDomain(ctx: Db, row: DomainRow): void {
  try {
    ctx.db.prepare('INSERT INTO project_domains (domain, project_id, created_by, created_at) VALUES (@domain, @project_id, @created_by, @created_at)').run(row);
  } catch (error) {
    // Callers check first inside a transaction; this is the database's word should a writer race past that.
    if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
      throw new SvcError('SVC_DOMAIN_TAKEN', `${row.domain} is claimed by another project.`, { cause: error });
    throw error;
  }
}

/** Delete a project's domain; false when it had none such. */
export function deleteDomain(ctx: Db, projectId: string, domain: string): boolean {
  return ctx.db.prepare('DELETE FROM project_domains WHERE project_id = ? AND domain = ?').run(projectId, domain).changes > 0;
}

/** Wire shape. */
export function toDomain(row: DomainRow): Domain {
  return { domain: row.domain, projectId: row.project_id, createdAt: isoTime(row.created_at) };
}
