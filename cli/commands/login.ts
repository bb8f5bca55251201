// `svc login [--server <url>] [--open]`: device login. Prints the code and URL, polls at the
// server's interval (slower on slow_down), and stores the token in ~/.svc/config.json (0600).
import { hostname } from 'node:os';
import type { Command } from 'commander';
import { SvcError } from '../../src/core/errors.js';
import type { DeviceStartResponse, DeviceTokenResponse } from '../../src/identity/contract.js';
import { ApiClient } from '../api-client.js';
import type { CommandModule } from '../command-module.js';
import type { CliContext } from '../context.js';
import { printable } from '../format-table.js';
import { DEFAULT_SERVER } from '../credentials.js';
import { loginServer } from '../login-server.js';
import { openInBrowser } from '../open-in-browser.js';
import { registrationStatus } from '../register-account.js';
import { saveLogin } from '../save-login.js';
import { offerRegistration } from './register.js';

/** Effects of the polling loop, injectable so tests control waiting. */
export interface PollEffects {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const realPoll: PollEffects = { now: () => Date.now(), sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) };

/**
 * Poll POST /api/device/token until approval: waits `interval` seconds between polls, adds time on
 * SVC_DEVICE_SLOW_DOWN, stops with SVC_DEVICE_EXPIRED at expiry and SVC_DEVICE_DENIED on denial.
 * Transient network failures are retried until expiry (the device code stays valid meanwhile).
 */
export async function pollForToken(client: ApiClient, start: DeviceStartResponse, effects: PollEffects = realPoll): Promise<DeviceTokenResponse> {
  const deadline = effects.now() + start.expiresIn * 1000;
  let intervalMs = Math.max(1, start.interval) * 1000;
  for (;;) {
    await effects.sleep(Math.min(intervalMs, Math.max(0, deadline - effects.now())));
    if (effects.now() >= deadline) throw new SvcError('SVC_DEVICE_EXPIRED', 'The login code expired before it was approved; run `svc login` again');
    try {
      return await client.pollDeviceToken(start.deviceCode);
    } catch (error) {
      if (!(error instanceof SvcError)) throw error;
      if (error.code === 'SVC_DEVICE_AUTHORIZATION_PENDING') continue;
      if (error.code === 'SVC_DEVICE_SLOW_DOWN') {
        // RFC 8628: add 5 s; a server-sent interval (seconds) wins when it is larger.
        const sent = Number(error.details?.interval);
        intervalMs = Math.max(intervalMs + 5_000, Number.isFinite(sent) ? sent * 1000 : 0);
        continue;
      }
      if (error.code === 'SVC_NETWORK' || error.code === 'SVC_TIMEOUT' || error.code === 'SVC_UNAVAILABLE') continue;
      throw error;
    }
  }
}

async function login(ctx: CliContext, options: { server?: string; open?: boolean; name?: string }): Promise<void> {
  const server = await loginServer(ctx, options.server);
  const client = new ApiClient({ server, http: ctx.http, userAgent: 'svc-cli' });
  // A new server has no account to approve with yet: say how to create the first one.
  const registration = await registrationStatus(server, ctx.http).catch(() => undefined);
  if (registration?.mode === 'bootstrap' && registration.open) {
    ctx.out.note(`${server} has no accounts yet: create the first (its owner) with \`svc register\`, or in the browser at ${server}/register.`);
    if (await offerRegistration(ctx, server, registration)) return;
  }
  const start = await client.startDeviceLogin(options.name ?? `svc CLI on ${hostname()}`);
  const prompt = `Open ${printable(start.verificationUriComplete)} and confirm code ${printable(start.userCode)}`;
  // Human mode: the prompt is the command's main output. --json keeps stdout for the final object.
  if (ctx.json) ctx.stderr.write(`${prompt}\n`);
  else ctx.stdout.write(`${prompt}\n`);
  if (options.open) await openBrowser(ctx, start.verificationUriComplete);
  if (!ctx.json) ctx.stderr.write(`Waiting for approval (code expires in ${Math.round(start.expiresIn / 60)} min)...\n`);
  const granted = await pollForToken(client, start);
  await saveLogin(ctx, server, granted, `Logged in to ${server} as ${granted.user.email}.`);
}

async function openBrowser(ctx: CliContext, url: string): Promise<void> {
  const notOpened = await openInBrowser(ctx, url);
  if (notOpened) ctx.out.note(`Could not open a browser (${notOpened}); open the URL above yourself.`);
}

/** The `svc login` command. */
export const loginCommand: CommandModule = {
  register(program: Command, ctx: CliContext): void {
    program
      .command('login')
      .description('log in with a device code: confirm the printed code in your browser; stores the token in ~/.svc/config.json')
      .option('--server <url>', `control plane URL (https, or http on loopback); default SVC_SERVER, the stored login, or ${DEFAULT_SERVER}`)
      .option('--open', 'open the approval page with the system browser')
      .option('--name <client-name>', 'name shown on the approval page (default "svc CLI on <hostname>")')
      .action((options: { server?: string; open?: boolean; name?: string }) => login(ctx, options));
  },
};
