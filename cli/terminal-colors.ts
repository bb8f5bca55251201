// Colours for human output. picocolors paints; whether to paint follows picocolors' own rule, applied
// to the environment and stream this run was given: picocolors' isColorSupported reads this
// process's globals once at import, and the CLI takes its effects as arguments (tests, --json).
import pc from 'picocolors';

/** The painters picocolors returns. */
export type Colors = ReturnType<typeof pc.createColors>;

/** Where the output goes and what the environment says about colours. */
export interface ColorSetting {
  env: Readonly<Record<string, string | undefined>>;
  /** Whether the stream being painted is a terminal. */
  isTTY: boolean;
  /** `--json`: machine output is never painted. */
  json: boolean;
}

/**
 * picocolors' decision: a non-empty NO_COLOR turns colours off; FORCE_COLOR, CI or a terminal that
 * is not TERM=dumb turns them on. (Its --color/--no-color flags and Windows default do not apply:
 * commander owns svc's flags, and svc runs on Linux.) Pure.
 */
export function colorEnabled(setting: ColorSetting): boolean {
  const { env } = setting;
  if (setting.json || env.NO_COLOR) return false;
  return Boolean(env.FORCE_COLOR) || Boolean(env.CI) || (setting.isTTY && env.TERM !== 'dumb');
}

/** The picocolors painters for this run (identity functions when colours are off). */
export function terminalColors(setting: ColorSetting): Colors {
  return pc.createColors(colorEnabled(setting));
}
