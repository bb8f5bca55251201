// Which program opens a URL in the user's browser, as argv data: $BROWSER when set, else the
// platform's opener (xdg-open, open, cmd's start). Pure; `svc open` runs the result through the
// executor passed in with the CLI's effects (CliEffects.exec).
import { command, type Command } from '../src/core/command.js';

/** Why there is no opener: the caller prints the URL instead. */
export type NoOpener = { reason: string };

/** Only web URLs are handed to an opener (never file: or other schemes, which could start programs). */
export function isWebUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:';
  } catch {
    return false;
  }
}

/**
 * The command that opens `url`, or why there is none. `env` is the CLI's environment: it is what the
 * opener runs with (a desktop session's DISPLAY, DBUS, PATH), less the svc token it has no use for.
 */
export function browserOpener(url: string, platform: NodeJS.Platform, env: Readonly<Record<string, string | undefined>>): Command | NoOpener {
  if (!isWebUrl(url)) return { reason: `not an http(s) URL: ${url}` };
  const childEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined && key !== 'SVC_TOKEN') childEnv[key] = value;
  const options = { env: childEnv, replaceEnv: true } as const;
  const browser = env.BROWSER?.trim();
  // $BROWSER names one program (people set it over SSH or in containers); it gets the URL as its argument.
  if (browser) return command(browser, [url], options);
  if (platform === 'darwin') return command('open', [url], options);
  // Not `cmd /c start`: cmd re-parses the URL (`&` ends the command) and Node's argument quoting does
  // not match cmd's rules; the URL handler takes the URL as one argument, unparsed.
  if (platform === 'win32') return command('rundll32', ['url.dll,FileProtocolHandler', url], options);
  // Elsewhere (Linux, the BSDs) the desktop's opener, which needs a graphical session to show anything.
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return { reason: 'no graphical session (DISPLAY and WAYLAND_DISPLAY are unset)' };
  return command('xdg-open', [url], options);
}
