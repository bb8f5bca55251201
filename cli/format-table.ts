/** Remove control characters (terminal escape sequences) from server-provided text before printing. */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
}

/** Render rows as left-aligned columns under an upper-case header; empty cells show as "-". */
export function formatTable(headers: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | null | undefined>>): string[] {
  const cells = rows.map((row) => headers.map((_, i) => (row[i] === null || row[i] === undefined || row[i] === '' ? '-' : printable(String(row[i])))));
  const widths = headers.map((header, i) => Math.max(header.length, ...cells.map((row) => row[i]?.length ?? 0)));
  const line = (values: readonly string[]): string => values.map((value, i) => (i === values.length - 1 ? value : value.padEnd(widths[i] ?? 0))).join('  ');
  return [line(headers.map((h) => h.toUpperCase())), ...cells.map(line)];
}
