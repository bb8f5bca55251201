import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { SvcError } from '../../core/errors.js';
import type { AuditExportDestination } from './audit-exporter.js';
import { httpAuditDestination } from './http-destination.js';

/** Audit export settings resolved from the environment (opt-in: undefined when unset). */
export interface AuditExportConfig {
  privateKey: KeyObject;
  keyId: string;
  destination: AuditExportDestination;
  intervalMs?: number;
}

const envSchema = z.object({
  SVC_AUDIT_EXPORT_KEY_FILE: z.string().min(1),
  SVC_AUDIT_EXPORT_KEY_ID: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[\w.:-]+$/),
  SVC_AUDIT_EXPORT_URL: z.url(),
  SVC_AUDIT_EXPORT_INTERVAL_MS: z.coerce.number().int().min(100).max(86_400_000).optional(),
});

/**
 * Read `SVC_AUDIT_EXPORT_KEY_FILE` (PEM Ed25519 private key, kept outside the platform database),
 * `SVC_AUDIT_EXPORT_KEY_ID` and `SVC_AUDIT_EXPORT_URL`. None set: export is off.
 */
export function auditExportConfigFromEnv(env: NodeJS.ProcessEnv): AuditExportConfig | undefined {
  if (env.SVC_AUDIT_EXPORT_KEY_FILE === undefined && env.SVC_AUDIT_EXPORT_KEY_ID === undefined && env.SVC_AUDIT_EXPORT_URL === undefined) return undefined;
  const parsed = envSchema.safeParse(env);
  if (!parsed.success)
    throw new SvcError(
      'SVC_AUDIT_EXPORT_CONFIG',
      `Audit export needs SVC_AUDIT_EXPORT_KEY_FILE, SVC_AUDIT_EXPORT_KEY_ID and SVC_AUDIT_EXPORT_URL: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`,
    );
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(readFileSync(parsed.data.SVC_AUDIT_EXPORT_KEY_FILE));
  } catch (error) {
    throw new SvcError('SVC_AUDIT_EXPORT_CONFIG', 'SVC_AUDIT_EXPORT_KEY_FILE is not a readable private key.', { cause: error });
  }
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new SvcError('SVC_AUDIT_EXPORT_CONFIG', 'The audit export key must be Ed25519.');
  return {
    privateKey,
    keyId: parsed.data.SVC_AUDIT_EXPORT_KEY_ID,
    destination: httpAuditDestination(parsed.data.SVC_AUDIT_EXPORT_URL),
    ...(parsed.data.SVC_AUDIT_EXPORT_INTERVAL_MS === undefined ? {} : { intervalMs: parsed.data.SVC_AUDIT_EXPORT_INTERVAL_MS }),
  };
}
