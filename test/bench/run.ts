// Benchmark harness: `npm run bench [-- <id>...]` imports test/bench/*.bench.ts (optionally only the ids given,
// matched against the file-name prefix such as "b6-"), runs each default export and prints one table.
// Every benchmark measures its own baseline in the same run; the exit code is 1 if any row misses its target.
// `--json <file>` also writes the rows with the machine they came from (written atomically); `--markdown`
// also prints them as the Markdown table docs/benchmarks.md keeps.
import { randomUUID } from 'node:crypto';
import { open, readdir, rename } from 'node:fs/promises';
import { cpus, release, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Benchmark, BenchResult } from './bench-types.js';

const benchDir = import.meta.dirname;

/** The benchmark files to run, filtered by id prefix (case-insensitive) when filters are given. */
export async function findBenchmarks(filters: string[]): Promise<string[]> {
  const files = (await readdir(benchDir)).filter((f) => f.endsWith('.bench.ts')).sort();
  if (filters.length === 0) return files;
  const wanted = filters.map((f) => f.toLowerCase());
  return files.filter((file) => wanted.some((id) => file.toLowerCase().startsWith(`${id}-`) || file.toLowerCase() === `${id}.bench.ts`));
}

/** Render rows as an aligned text table. */
export function formatTable(rows: BenchResult[]): string {
  const header = ['id', 'benchmark', 'value', 'baseline', 'ratio', 'min–max (rounds)', 'target', 'pass'];
  const body = rows.map((r) => [
    r.id,
    r.name,
    `${format(r.value)} ${r.unit}`,
    `${format(r.baseline)} ${r.unit} (${r.baselineName})`,
    `${r.ratio.toFixed(2)}x`,
    r.range ? `${r.range.min.toFixed(2)}–${r.range.max.toFixed(2)} (${r.range.rounds})` : '',
    r.target ?? '',
    r.pass === undefined ? '' : r.pass ? 'yes' : 'NO',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

/** The same rows as a Markdown table, for docs/benchmarks.md ("Latest figures"). */
export function formatMarkdown(rows: BenchResult[]): string {
  const cell = (text: string): string => text.replaceAll('|', '\\|');
  const lines = ['| Row | Measurement | Ours | Baseline | Ratio (median) | min–max (rounds) | Goal | Met |', '|---|---|---|---|---|---|---|---|'];
  for (const r of rows) {
    const range = r.range ? `${r.range.min.toFixed(2)}–${r.range.max.toFixed(2)} (${r.range.rounds})` : '';
    const met = r.pass === undefined ? '' : r.pass ? 'yes' : 'no';
    lines.push(
      `| ${r.id} | ${cell(r.name)} | ${format(r.value)} ${r.unit} | ${format(r.baseline)} ${r.unit} (${cell(r.baselineName)}) | ${r.ratio.toFixed(2)}× | ${range} | ${cell(r.target ?? '')} | ${met} |`,
    );
  }
  return lines.join('\n');
}

function format(n: number): string {
  return Math.abs(n) >= 100 ? n.toFixed(0) : n.toFixed(2);
}

/** Where `--json <file>` asks the rows to go, and the id filters (every other argument). */
export function parseArgs(argv: string[]): { filters: string[]; json?: string; markdown: boolean } {
  const filters: string[] = [];
  let json: string | undefined;
  let markdown = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--json') {
      json = argv[++i];
      if (!json) throw new Error('--json needs a file name: npm run bench -- --json bench.json');
    } else if (arg.startsWith('--json=')) json = arg.slice('--json='.length);
    else if (arg === '--markdown') markdown = true;
    else if (!arg.startsWith('-')) filters.push(arg);
  }
  return json === undefined ? { filters, markdown } : { filters, json, markdown };
}

/** The machine a run came from, so a reader can tell which figures are comparable. */
export function machine(): Record<string, unknown> {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    kernel: release(),
  };
}

async function writeJsonAtomically(file: string, value: unknown): Promise<void> {
  const target = resolve(file);
  const temp = join(dirname(target), `.${randomUUID()}.tmp`);
  const handle = await open(temp, 'w');
  try {
    await handle.writeFile(`${JSON.stringify(value, null, 2)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, target);
}

async function main(): Promise<void> {
  const { filters, json, markdown } = parseArgs(process.argv.slice(2));
  const files = await findBenchmarks(filters);
  if (files.length === 0) {
    console.error(`No benchmarks match ${filters.join(', ') || '(none found)'} in ${benchDir}`);
    process.exitCode = 1;
    return;
  }
  const rows: BenchResult[] = [];
  for (const file of files) {
    const started = performance.now();
    process.stderr.write(`running ${file} …\n`);
    const mod = (await import(pathToFileURL(join(benchDir, file)).href)) as { default: Benchmark };
    try {
      rows.push(...(await mod.default()));
    } catch (error) {
      console.error(`${file} failed: ${(error as Error).stack ?? String(error)}`);
      process.exitCode = 1;
    }
    process.stderr.write(`  ${file} done in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  }
  console.log(formatTable(rows));
  if (markdown) console.log(`\n${formatMarkdown(rows)}`);
  if (json) await writeJsonAtomically(json, { at: new Date().toISOString(), machine: machine(), rows });
  if (rows.some((r) => r.pass === false)) process.exitCode = 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
