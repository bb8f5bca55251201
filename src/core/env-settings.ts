// A feature's SVC_* settings from the platform's environment: only the variables its schema names,
// unset and empty ones left to the schema's defaults; a bad value stops start-up naming the variable.
import type { z } from 'zod';
import { SvcError } from './errors.js';

/** Parse `schema`'s variables out of `env`; throws SVC_PLATFORM_CONFIG_INVALID naming the first bad one. */
export function parseEnvSettings<S extends z.ZodObject>(schema: S, env: Readonly<Record<string, string | undefined>>): z.infer<S> {
  const picked = Object.fromEntries(Object.keys(schema.shape).flatMap((name) => (env[name] ? [[name, env[name]]] : [])));
  const parsed = schema.safeParse(picked);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SvcError('SVC_PLATFORM_CONFIG_INVALID', `${String(issue.path[0])}: ${issue.message}`);
  }
  return parsed.data;
}
