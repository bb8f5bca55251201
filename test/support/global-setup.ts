// Runs once before the suite: hostile fixtures are generated, not checked in (some are large).
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Generate hostile artifact fixtures if a generator exists and they are missing. */
export default async function setup(): Promise<void> {
  const generator = join(import.meta.dirname, '..', '..', 'fixtures', 'generate-hostile.ts');
  if (existsSync(generator)) {
    const mod = (await import(generator)) as { generateHostileFixtures?: () => Promise<void> };
    await mod.generateHostileFixtures?.();
  }
}
