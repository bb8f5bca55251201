// Open a URL in the user's browser through the CLI's executor (`svc open`, `svc login --open`).
import { SvcError } from '../src/core/errors.js';
import { browserOpener } from './browser-opener.js';
import type { CliContext } from './context.js';

/** Run the platform's opener for `url`; resolves with why it did not open, or undefined when it did. */
export async function openInBrowser(ctx: CliContext, url: string): Promise<string | undefined> {
  const opener = browserOpener(url, ctx.platform, ctx.env);
  if ('reason' in opener) return opener.reason;
  try {
    // discard: a browser that inherited our pipes would keep the command running until it exits.
    const result = await ctx.exec(opener, { discard: true });
    return result.exitCode === 0 ? undefined : `${opener.file} exited with ${result.exitCode ?? result.signal}`;
  } catch (error) {
    if (error instanceof SvcError && error.code === 'SVC_COMMAND_NOT_FOUND') return error.message;
    throw error;
  }
}
