// HTTP contract of the console's own route: a session probe that answers 200 whether or not the
// browser is signed in (so loading the console never logs a failed request). Imports only zod.
import { z } from 'zod';
import { sessionResponseSchema } from '../identity/contract.js';

export const consoleApiRoutes = {
  /** GET: `{ signedIn, session }` — the user and CSRF token when a browser session is active. */
  session: '/api/console/session',
} as const;

export const consoleSessionResponseSchema = z.object({
  signedIn: z.boolean(),
  session: sessionResponseSchema.nullable().describe('null when not signed in (no cookie, expired or ended session)'),
});
export type ConsoleSessionResponse = z.infer<typeof consoleSessionResponseSchema>;
