import type { Migration } from '../core/db-migrations.js';
import { auditExportMigrations } from './audit-export/migrations.js';
import { drillMigrations } from './drills/drill-store.js';
import { monitorMigrations } from './monitor/migrations.js';

/** Every control-database migration of src/ops (after audit, which the export reads). */
export const opsMigrations: readonly Migration[] = [...auditExportMigrations, ...monitorMigrations, ...drillMigrations];
