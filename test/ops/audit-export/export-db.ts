// A real control database in a temp dir with the audit and audit-export tables, for export tests.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appendAudit } from '../../../src/audit/append-audit.js';
import { auditMigrations } from '../../../src/audit/migrations.js';
import { manualClock } from '../../../src/core/clock.js';
import { openControlDb, type ControlDb } from '../../../src/core/control-db.js';
import { applyMigrations } from '../../../src/core/db-migrations.js';
import { sequentialIds } from '../../../src/core/ids.js';
import { auditExportMigrations } from '../../../src/ops/audit-export/migrations.js';

export interface ExportDb {
  db: ControlDb;
  clock: ReturnType<typeof manualClock>;
  dir: string;
  append(n: number): void;
  close(): void;
}

/** Open a temp control database with audit + export migrations. */
export function openExportDb(): ExportDb {
  const dir = mkdtempSync(join(tmpdir(), 'svc-ops-export-'));
  const db = openControlDb(join(dir, 'control.db'));
  const clock = manualClock(Date.parse('2026-03-01T12:00:00Z'));
  applyMigrations(db, [...auditMigrations, ...auditExportMigrations], clock.now);
  const ids = sequentialIds();
  let n = 0;
  const ctx = { db, clock, ids };
  return {
    db,
    clock,
    dir,
    append(count) {
      db.transaction(() => {
        for (let i = 0; i < count; i++) {
          n++;
          appendAudit(ctx, {
            kind: 'project.create',
            organizationId: 'org_1',
            projectId: `prj_${n % 7}`,
            actor: { type: 'user', id: 'usr_1', name: 'a@example.com' },
            metadata: { slug: `site-${n}`, n },
          });
        }
      })();
    },
    close() {
      if (db.open) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh Ed25519 key pair. */
export function ed25519(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync('ed25519');
}
