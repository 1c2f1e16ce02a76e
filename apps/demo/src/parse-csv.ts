/**
 * Parses CSV text as RFC 4180 describes it (https://www.rfc-editor.org/rfc/rfc4180): fields are
 * separated by commas, records by CRLF or LF; a field in double quotes may hold commas, line
 * breaks and doubled quotes (`""` stands for `"`). A final line break does not add a record.
 *
 * @returns every record as an array of its fields, the header included
 * @throws Error when a quoted field is not closed, or a quote appears inside an unquoted field
 *
 * @example
 * parseCsv('a,b\n"x, y","say ""hi"""\n'); // [['a', 'b'], ['x, y', 'say "hi"']]
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let fieldStarted = false;
  let line = 1;
  for (let i = 0; i < text.length; i++) {
    const char = text.charAt(i);
    if (quoted) {
      if (char === '"') {
        if (text.charAt(i + 1) === '"') {
          field += '"';
          i++;
        } else {
          quoted = false;
        }
      } else {
        if (char === '\n') line++;
        field += char;
      }
      continue;
    }
    switch (char) {
      case '"':
        if (fieldStarted) throw new Error(`CSV line ${line}: a quote inside an unquoted field`);
        quoted = true;
        fieldStarted = true;
        break;
      case ',':
        record.push(field);
        field = '';
        fieldStarted = false;
        break;
      case '\r':
        if (text.charAt(i + 1) !== '\n')
          throw new Error(`CSV line ${line}: a carriage return without a line feed`);
        break;
      case '\n':
        record.push(field);
        records.push(record);
        record = [];
        field = '';
        fieldStarted = false;
        line++;
        break;
      default:
        field += char;
        fieldStarted = true;
    }
  }
  if (quoted) throw new Error(`CSV line ${line}: a quoted field is not closed`);
  if (fieldStarted || record.length > 0) {
    record.push(field);
    records.push(record);
  }
  return records;
}
