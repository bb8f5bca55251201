// Questions asked on the terminal, one line at a time: the answer shown as typed, or hidden (a
// password). The terminal is put in raw mode for each answer so nothing is echoed that we do not
// echo ourselves, and put back afterwards whatever happens. Keys arrive as text; `answerKeys` decides
// what they do, without any terminal, so it is tested on its own.
import { SvcError } from '../src/core/errors.js';
import type { Writer } from './writer.js';

/** The parts of a TTY's input stream a prompt uses (process.stdin on a terminal). */
export interface TerminalInput {
  setRawMode(mode: boolean): unknown;
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  off(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

/** Where an answer stands after some keys: still typing, or ended (with the keys left over). */
export type AnswerState = { kind: 'typing'; text: string; echo: string } | { kind: 'done'; text: string; echo: string; rest: string } | { kind: 'cancelled' };

/** Longest answer accepted; a pasted file or a stuck key stops here. */
const MAX_ANSWER = 1024;

/**
 * Apply typed keys to an answer. Enter ends it, Backspace removes one character, Ctrl-C or Ctrl-D
 * cancel, other control characters (arrows arrive as escape sequences) are ignored. `echo` is what
 * to print for these keys: the characters themselves, or nothing when the answer is hidden. Pure.
 */
export function answerKeys(text: string, keys: string, hidden: boolean): AnswerState {
  let echo = '';
  const chars = [...keys];
  for (let i = 0; i < chars.length; i++) {
    const key = chars[i]!;
    if (key === '\r' || key === '\n') {
      // A CR LF pair is one Enter.
      const next = key === '\r' && chars[i + 1] === '\n' ? i + 2 : i + 1;
      return { kind: 'done', text, echo, rest: chars.slice(next).join('') };
    }
    if (key === '\u0003' || key === '\u0004') return { kind: 'cancelled' };
    if (key === '\u007f' || key === '\b') {
      if (text.length > 0) {
        text = [...text].slice(0, -1).join('');
        if (!hidden) echo += '\b \b';
      }
      continue;
    }
    if (key === '\u001b') {
      // Skip an escape sequence such as ESC [ A (an arrow key).
      if (chars[i + 1] === '[') for (i += 2; i < chars.length && !/[@-~]/.test(chars[i]!); i++);
      continue;
    }
    if (key < ' ') continue;
    if (text.length >= MAX_ANSWER) continue;
    text += key;
    if (!hidden) echo += key;
  }
  return { kind: 'typing', text, echo };
}

/** Asks questions on one terminal; keys typed ahead of a question are kept for it. */
export class TerminalPrompt {
  private pending = '';

  constructor(
    private readonly input: TerminalInput,
    private readonly output: Writer,
  ) {}

  /** Ask `question` and resolve with the answer (SVC_USAGE when cancelled with Ctrl-C or Ctrl-D). */
  ask(question: string, options: { hidden?: boolean } = {}): Promise<string> {
    const hidden = options.hidden === true;
    // Raw mode before the question: keys typed as soon as it shows are never echoed by the terminal.
    this.input.setRawMode(true);
    this.output.write(question);
    return new Promise((resolve, reject) => {
      let text = '';
      const finish = (action: () => void): void => {
        this.input.off('data', onData);
        this.input.setRawMode(false);
        this.input.pause();
        this.output.write('\n');
        action();
      };
      const onData = (chunk: Buffer | string): void => {
        const state = answerKeys(text, typeof chunk === 'string' ? chunk : chunk.toString('utf8'), hidden);
        if (state.kind === 'cancelled') return finish(() => reject(new SvcError('SVC_USAGE', 'Cancelled at the prompt; nothing was sent.')));
        if (state.echo) this.output.write(state.echo);
        text = state.text;
        if (state.kind === 'done') {
          this.pending = state.rest;
          finish(() => resolve(text));
        }
      };
      this.input.on('data', onData);
      this.input.resume();
      if (this.pending) {
        const typedAhead = this.pending;
        this.pending = '';
        onData(typedAhead);
      }
    });
  }
}
