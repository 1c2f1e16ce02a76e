/** A table line: cells to align, or a string printed as it is (a heading, a blank line). */
export type TableLine = readonly string[] | string;

/**
 * Lays out rows as aligned columns: every cell but a row's last is padded to its column's widest
 * such cell, plus `gap` spaces; each row is indented by `indent` spaces. Plain strings pass
 * through unchanged, so headings can sit between aligned rows.
 *
 * @example
 * formatColumns([['Jobs', '52'], ['Wall time', '1.2 s']]); // ['  Jobs       52', '  Wall time  1.2 s']
 */
export function formatColumns(lines: readonly TableLine[], indent = 2, gap = 2): string[] {
  const widths: number[] = [];
  for (const line of lines) {
    if (typeof line === 'string') continue;
    line.slice(0, -1).forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  }
  return lines.map((line) => {
    if (typeof line === 'string') return line;
    const cells = line.map((cell, i) => (i < line.length - 1 ? cell.padEnd((widths[i] ?? 0) + gap) : cell));
    return `${' '.repeat(indent)}${cells.join('')}`;
  });
}
