// Standalone verifier: `npm run verify-audit-export -- --entries export.json --key k1=pub.pem [--checkpoint cp.json]`.
// Prints the next checkpoint as JSON (exit 0), or the failure code (exit 1); usage errors exit 2.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SvcError } from '../../core/errors.js';
import { verifyAuditExport } from './verify-audit-export.js';

function readEntries(text: string): unknown[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) return JSON.parse(trimmed) as unknown[];
  if (trimmed.startsWith('{') && trimmed.includes('"entries"') && !trimmed.includes('\n')) return (JSON.parse(trimmed) as { entries: unknown[] }).entries;
  return trimmed === ''
    ? []
    : trimmed
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as unknown);
}

function main(argv: string[]): number {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { entries: { type: 'string' }, key: { type: 'string', multiple: true }, checkpoint: { type: 'string' } },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\nusage: verify-audit-export --entries <file> --key <id>=<public.pem> [--key …] [--checkpoint <file>]\n`);
    return 2;
  }
  if (!values.entries || !values.key?.length) {
    process.stderr.write('usage: verify-audit-export --entries <file> --key <id>=<public.pem> [--key …] [--checkpoint <file>]\n');
    return 2;
  }
  try {
    const keys: Record<string, string> = {};
    for (const spec of values.key) {
      const at = spec.indexOf('=');
      if (at <= 0) throw new Error(`--key must be <id>=<file>, got "${spec}"`);
      keys[spec.slice(0, at)] = readFileSync(spec.slice(at + 1), 'utf8');
    }
    const entries = readEntries(readFileSync(values.entries, 'utf8'));
    const checkpoint = values.checkpoint ? (JSON.parse(readFileSync(values.checkpoint, 'utf8')) as { sequence: number; digest: string }) : undefined;
    const next = verifyAuditExport(entries, keys, checkpoint);
    process.stdout.write(`${JSON.stringify({ ok: true, entries: entries.length, checkpoint: next })}\n`);
    return 0;
  } catch (error) {
    const code = error instanceof SvcError ? error.code : 'SVC_AUDIT_EXPORT_MALFORMED';
    process.stdout.write(`${JSON.stringify({ ok: false, code, message: (error as Error).message })}\n`);
    return 1;
  }
}

process.exitCode = main(process.argv.slice(2));
