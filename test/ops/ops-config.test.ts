import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SvcError } from '../../src/core/errors.js';
import { auditExportConfigFromEnv } from '../../src/ops/audit-export/audit-export-config.js';
import { drillConfigFromEnv } from '../../src/ops/drills/drill-config.js';
import { monitorConfigFromEnv } from '../../src/ops/monitor/monitor-config.js';
import { webhookSignature, verifyWebhookSignature } from '../../src/ops/monitor/webhook-notifier.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-ops-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof SvcError ? error.code : 'other';
  }
  return undefined;
}

describe('operations configuration from the environment (all opt-in)', () => {
  it('audit export: off when unset, rejects partial settings and non-Ed25519 keys', () => {
    expect(auditExportConfigFromEnv({})).toBeUndefined();
    expect(codeOf(() => auditExportConfigFromEnv({ SVC_AUDIT_EXPORT_KEY_ID: 'k1' }))).toBe('SVC_AUDIT_EXPORT_CONFIG');
    const ed = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' });
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' });
    writeFileSync(join(dir, 'ed.pem'), ed);
    writeFileSync(join(dir, 'ec.pem'), ec);
    const base = { SVC_AUDIT_EXPORT_KEY_ID: 'k1', SVC_AUDIT_EXPORT_URL: 'https://audit.example.com/in' };
    expect(auditExportConfigFromEnv({ ...base, SVC_AUDIT_EXPORT_KEY_FILE: join(dir, 'ed.pem') })?.keyId).toBe('k1');
    expect(codeOf(() => auditExportConfigFromEnv({ ...base, SVC_AUDIT_EXPORT_KEY_FILE: join(dir, 'ec.pem') }))).toBe('SVC_AUDIT_EXPORT_CONFIG');
    expect(codeOf(() => auditExportConfigFromEnv({ ...base, SVC_AUDIT_EXPORT_KEY_FILE: join(dir, 'missing.pem') }))).toBe('SVC_AUDIT_EXPORT_CONFIG');
    expect(
      codeOf(() => auditExportConfigFromEnv({ ...base, SVC_AUDIT_EXPORT_URL: 'http://audit.example.com/in', SVC_AUDIT_EXPORT_KEY_FILE: join(dir, 'ed.pem') })),
    ).toBe('SVC_AUDIT_EXPORT_CONFIG');
  });

  it('monitor: off without a webhook URL; interval may be false; the secret has a minimum length', () => {
    expect(monitorConfigFromEnv({})).toBeUndefined();
    const base = { SVC_OPS_WEBHOOK_URL: 'https://hooks.example.com/svc', SVC_OPS_WEBHOOK_SECRET: 'x'.repeat(16) };
    expect(monitorConfigFromEnv(base)).toMatchObject({ intervalMs: 60_000, usageWarningPercent: 80, unhealthyGraceMs: 120_000, jobGraceMs: 900_000 });
    expect(codeOf(() => monitorConfigFromEnv({ ...base, SVC_OPS_JOB_GRACE_MS: '-1' }))).toBe('SVC_OPS_CONFIG');
    expect(monitorConfigFromEnv({ ...base, SVC_OPS_INTERVAL_MS: 'false' })?.intervalMs).toBe(false);
    expect(codeOf(() => monitorConfigFromEnv({ ...base, SVC_OPS_WEBHOOK_SECRET: 'short' }))).toBe('SVC_OPS_CONFIG');
    expect(codeOf(() => monitorConfigFromEnv({ ...base, SVC_OPS_INTERVAL_MS: '10' }))).toBe('SVC_OPS_CONFIG');
  });

  it('restore drills: daily with a 2-minute limit and health checks by default; false turns them off; bad checks are refused', () => {
    expect(drillConfigFromEnv({})).toEqual({ intervalMs: 86_400_000, timeoutMs: 120_000, checks: undefined, withSecrets: false });
    expect(drillConfigFromEnv({ SVC_RESTORE_DRILL_INTERVAL_MS: 'false' })).toBeUndefined();
    expect(
      drillConfigFromEnv({
        SVC_RESTORE_DRILL_INTERVAL_MS: '3600000',
        SVC_RESTORE_DRILL_TIMEOUT_MS: '5000',
        SVC_RESTORE_DRILL_SECRETS: 'true',
        SVC_RESTORE_DRILL_CHECKS: '[{"name":"notes","path":"/notes","status":200}]',
      }),
    ).toEqual({
      intervalMs: 3_600_000,
      timeoutMs: 5000,
      checks: [{ name: 'notes', path: '/notes', status: 200 }],
      withSecrets: true,
    });
    expect(codeOf(() => drillConfigFromEnv({ SVC_RESTORE_DRILL_INTERVAL_MS: '10' }))).toBe('SVC_OPS_DRILL_CONFIG');
    expect(codeOf(() => drillConfigFromEnv({ SVC_RESTORE_DRILL_CHECKS: '[{"name":"x","path":"no-slash","status":200}]' }))).toBe('SVC_OPS_DRILL_CONFIG');
    expect(codeOf(() => drillConfigFromEnv({ SVC_RESTORE_DRILL_CHECKS: 'not json' }))).toBe('SVC_OPS_DRILL_CONFIG');
    expect(codeOf(() => drillConfigFromEnv({ SVC_RESTORE_DRILL_CHECKS: '[]' }))).toBe('SVC_OPS_DRILL_CONFIG');
  });

  it('webhook signatures bind the timestamp and body', () => {
    const sig = webhookSignature('s'.repeat(16), '1000', '{"a":1}');
    expect(verifyWebhookSignature('s'.repeat(16), '1000', '{"a":1}', sig)).toBe(true);
    expect(verifyWebhookSignature('s'.repeat(16), '1001', '{"a":1}', sig)).toBe(false);
    expect(verifyWebhookSignature('s'.repeat(16), '1000', '{"a":2}', sig)).toBe(false);
    expect(verifyWebhookSignature('t'.repeat(16), '1000', '{"a":1}', sig)).toBe(false);
  });
});
