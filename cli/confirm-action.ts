// A yes/no question before a command changes something that is hard to undo. `--yes` answers it in
// advance; without a terminal to ask on (a script, CI, or --json) the command refuses unless --yes
// was given, so nothing destructive ever happens because nobody was there to say no.
import { SvcError } from '../src/core/errors.js';
import type { CliContext } from './context.js';
import { TerminalPrompt } from './terminal-prompt.js';

/** Whether a typed answer means yes ("y" or "yes", any case). Pure. */
export function isYes(answer: string): boolean {
  return /^y(es)?$/i.test(answer.trim());
}

/**
 * Go on when `yes` is set or the user answers yes to `question` on the terminal; otherwise throw
 * SVC_USAGE (nothing was sent). A question given as a function is built only once it can be asked
 * (e.g. after a request that names what is about to change). `flagHint` names the flag that confirms.
 */
export async function confirmAction(
  ctx: CliContext,
  question: string | (() => Promise<string>),
  options: { yes: boolean | undefined; flagHint?: string },
): Promise<void> {
  if (options.yes === true) return;
  const flag = options.flagHint ?? '--yes';
  if (ctx.json) throw new SvcError('SVC_USAGE', `With --json nothing is asked: pass ${flag} to confirm.`);
  const terminal = ctx.stdin.isTTY === true ? ctx.stdin.terminal?.() : undefined;
  if (!terminal) throw new SvcError('SVC_USAGE', `No terminal to ask for confirmation on: pass ${flag} to confirm.`);
  const text = typeof question === 'string' ? question : await question();
  const answer = await new TerminalPrompt(terminal, ctx.stderr).ask(`${text} [y/N] `);
  if (!isYes(answer)) throw new SvcError('SVC_USAGE', 'Not confirmed; nothing was changed.');
}
