// While a long-running svc process starts, nearly everything it allocates (modules, closures, route
// tables, prepared statements) lives on, and V8 answers each young-generation collection with many
// survivors by doubling the young generation, up to 16 MiB per semi-space on 64-bit. An idle control
// plane then holds ~20-25 MiB of empty young generation until V8's memory reducer runs, a minute or
// more later. Holding the growth factor at 1 during start-up keeps the young generation at its initial
// size; once the process serves, the default factor is back and load grows it as before.
import { setFlagsFromString } from 'node:v8';

const FLAG = '--semi-space-growth-factor';
/** V8's default growth factor (node --v8-options). */
const DEFAULT_GROWTH_FACTOR = 2;

/** Whether svc may hold the young generation: not when the operator set young-generation flags. Pure. */
export function mayHoldYoungGeneration(execArgv: readonly string[], nodeOptions: string): boolean {
  return ![...execArgv, nodeOptions].some((arg) => /semi[-_]space/.test(arg));
}

/** Keep the young generation at its initial size until the returned release is called (idempotent). */
export function holdYoungGeneration(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): () => void {
  if (!mayHoldYoungGeneration(execArgv, nodeOptions)) return () => undefined;
  setFlagsFromString(`${FLAG}=1`);
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    setFlagsFromString(`${FLAG}=${DEFAULT_GROWTH_FACTOR}`);
  };
}
