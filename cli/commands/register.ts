// `svc register`: create an account on a server that takes new ones (the first account of a new
// server, which becomes its owner, or any on a server with public registration) and log in as it.
// The password is asked for without echo on a terminal, or read from stdin with --password-stdin.
import { hostname } from 'node:os';
import type { Command } from 'commander';
import { SvcError } from '../../src/core/errors.js';
import type { CommandModule } from '../command-module.js';
import type { CliContext } from '../context.js';
import { DEFAULT_SERVER } from '../credentials.js';
import { loginServer } from '../login-server.js';
import { checkNewAccount, registerAccount, registrationStatus, type RegistrationStatus } from '../register-account.js';
import { saveLogin } from '../save-login.js';
import { TerminalPrompt } from '../terminal-prompt.js';

interface RegisterOptions {
  server?: string;
  email?: string;
  name?: string;
  passwordStdin?: boolean;
  clientName?: string;
}

/** Longest password read from stdin (the server takes at most 256 characters). */
const MAX_STDIN_PASSWORD = 4096;

/** SVC_REGISTRATION_CLOSED, worded for the CLI, unless `status` says a new account would be taken. */
export function assertRegistrationOpen(server: string, status: RegistrationStatus): void {
  if (status.open) return;
  throw new SvcError(
    'SVC_REGISTRATION_CLOSED',
    status.mode === 'bootstrap'
      ? `${server} has its first account already: log in with \`svc login\`, or ask its owner for an invitation`
      : `${server} does not take new accounts (registration ${status.mode}): ask an administrator for an invitation`,
  );
}

/** A prompt on the terminal stdin is, or null when stdin is not one. */
function terminalPrompt(ctx: CliContext): TerminalPrompt | null {
  const terminal = ctx.stdin.isTTY === true ? ctx.stdin.terminal?.() : undefined;
  return terminal ? new TerminalPrompt(terminal, ctx.stderr) : null;
}

// The password piped on stdin, without the newline `echo` adds.
async function readPasswordFromStdin(ctx: CliContext): Promise<string> {
  if (ctx.stdin.isTTY)
    throw new SvcError('SVC_USAGE', '--password-stdin reads a piped password; on a terminal, leave it out and type the password at the prompt.');
  let text = '';
  for await (const chunk of ctx.stdin) {
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    if (text.length > MAX_STDIN_PASSWORD) throw new SvcError('SVC_VALIDATION', 'The password on standard input is longer than 256 characters.');
  }
  return text.replace(/\r?\n$/, '');
}

async function askPassword(prompt: TerminalPrompt): Promise<string> {
  const password = await prompt.ask('Password (at least 10 characters): ', { hidden: true });
  checkNewAccount({ email: 'check@example.com', password });
  if ((await prompt.ask('Repeat the password: ', { hidden: true })) !== password)
    throw new SvcError('SVC_USAGE', 'The two passwords differ; nothing was sent.');
  return password;
}

/** Register and store the login; `status` is the server's registration status when already read. */
export async function register(ctx: CliContext, options: RegisterOptions, status?: RegistrationStatus, asking?: TerminalPrompt): Promise<void> {
  const server = await loginServer(ctx, options.server);
  assertRegistrationOpen(server, status ?? (await registrationStatus(server, ctx.http)));
  const prompt = asking ?? terminalPrompt(ctx);
  const noTerminal = (what: string, flag: string): SvcError =>
    new SvcError('SVC_USAGE', `No terminal to ask for ${what} on: pass ${flag} (see \`svc register --help\`).`);
  if (!options.passwordStdin && !prompt) throw noTerminal('the password', '--password-stdin with the password piped in');
  if (!options.email && !prompt) throw noTerminal('the email address', '--email <address>');
  if (prompt && !ctx.json) ctx.out.note(`Creating an account on ${server}.`);
  const email = options.email ?? (await prompt!.ask('Email: '));
  checkNewAccount({ email, password: 'x'.repeat(10) });
  const password = options.passwordStdin ? await readPasswordFromStdin(ctx) : await askPassword(prompt!);
  const granted = await registerAccount(server, ctx.http, { email, password, name: options.name }, options.clientName ?? `svc CLI on ${hostname()}`);
  await saveLogin(ctx, server, granted, `Registered ${granted.user.email} on ${server} and logged in.`);
}

/**
 * `svc login` against a server without accounts: on a terminal, offer to create the first one here.
 * True when it did (and the login is stored); false to go on with the device login.
 */
export async function offerRegistration(ctx: CliContext, server: string, status: RegistrationStatus): Promise<boolean> {
  const prompt = ctx.json ? null : terminalPrompt(ctx);
  if (!prompt) return false;
  const answer = (await prompt.ask('Create the first account now? [Y/n] ')).trim().toLowerCase();
  if (answer !== '' && answer !== 'y' && answer !== 'yes') return false;
  await register(ctx, { server }, status, prompt);
  return true;
}

/** The `svc register` command. */
export const registerCommand: CommandModule = {
  register(program: Command, ctx: CliContext): void {
    program
      .command('register')
      .description("create an account (a new server's first account becomes its owner) and log in as it; stores the token like `svc login`")
      .option('--server <url>', `control plane URL (https, or http on loopback); default SVC_SERVER, the stored login, or ${DEFAULT_SERVER}`)
      .option('--email <address>', 'the account email (asked for on a terminal when left out)')
      .option('--name <display-name>', 'the name shown for the account')
      .option('--password-stdin', 'read the password from standard input (without a terminal); otherwise it is asked for without echo')
      .option('--client-name <name>', 'name of the token, as on the approval page of `svc login` (default "svc CLI on <hostname>")')
      .action((options: RegisterOptions) => register(ctx, options));
  },
};
