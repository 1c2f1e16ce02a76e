import { terminalSafe } from './terminal-text.js';

/**
 * Rows as an aligned text table (each cell made {@link terminalSafe}, so a value cannot break
 * the table's lines): a header line, then one line per row, columns separated by two
 * spaces and padded to their widest cell; numbers (cells of right-aligned columns) padded on the
 * left. No trailing spaces. An empty `rows` gives the header alone.
 */
export function formatTable(
  header: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
  rightAligned: ReadonlySet<number> = new Set(),
): string {
  const all = [header, ...rows].map((row) => row.map(terminalSafe));
  const widths = header.map((_, column) => Math.max(...all.map((row) => (row[column] ?? '').length)));
  return all
    .map((row) =>
      header
        .map((_, column) => {
          const cell = row[column] ?? '';
          const width = widths[column] ?? 0;
          return rightAligned.has(column) ? cell.padStart(width) : cell.padEnd(width);
        })
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
