/** How a column's cells line up. */
export type ColumnAlign = 'left' | 'right';

/** One column of a {@link formatMarkdownTable} table. */
export interface TableColumn {
  readonly title: string;
  /** @defaultValue `'left'` */
  readonly align?: ColumnAlign;
}

/** Escapes a cell so it cannot break the table: pipes are escaped, line breaks become spaces. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/**
 * A GitHub-flavoured Markdown table whose columns are padded to a common width, so it reads as
 * well in a terminal as rendered. Rows shorter than the header are padded with empty cells.
 *
 * @example
 * formatMarkdownTable([{ title: 'system' }, { title: 'jobs/s', align: 'right' }], [['nudge', '1,234']])
 * // | system | jobs/s |
 * // | ------ | -----: |
 * // | nudge  |  1,234 |
 */
export function formatMarkdownTable(
  columns: readonly TableColumn[],
  rows: readonly (readonly string[])[],
): string {
  const body = rows.map((row) => columns.map((_, i) => cell(row[i] ?? '')));
  const titles = columns.map((column) => cell(column.title));
  const widths = columns.map((_, i) =>
    Math.max(3, titles[i]?.length ?? 0, ...body.map((row) => row[i]?.length ?? 0)),
  );
  const pad = (text: string, i: number): string => {
    const width = widths[i] ?? 0;
    return columns[i]?.align === 'right' ? text.padStart(width) : text.padEnd(width);
  };
  const line = (cells: readonly string[]): string => `| ${cells.map(pad).join(' | ')} |`;
  const rule = widths.map((width, i) =>
    columns[i]?.align === 'right' ? `${'-'.repeat(width - 1)}:` : '-'.repeat(width),
  );
  return [line(titles), `| ${rule.join(' | ')} |`, ...body.map(line)].join('\n');
}
