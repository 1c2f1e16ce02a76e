// Reads vega-datasets' flights-3m.parquet with hyparquet. What the file holds (read off its footer
// with hyparquet's parquetMetadataAsync; written by Polars):
//
//   3,000,000 rows in 11 row groups: 10 of 272,727 rows and a last one of 272,730.
//   date         INT64, TIMESTAMP(MICROS, isAdjustedToUTC=false): the local departure time as a
//                wall-clock reading, no time zone. Rows are sorted by it: row group 0 runs from
//                2001-01-01 00:01 to 2001-01-17 15:35, row group 10 ends at 2001-07-01 00:00 (six
//                flights stamped exactly midnight after June 30, so July 2001 has six flights).
//   delay        INT64, whole minutes, negative when early (-1116 to 1688, 867 distinct values).
//   distance     INT64, miles (not read here).
//   origin       BYTE_ARRAY UTF8, IATA code (229 distinct origins).
//   destination  BYTE_ARRAY UTF8, IATA code.
//
// Every column is OPTIONAL but holds no null. Each column chunk is a single dictionary-encoded
// data page compressed with ZSTD (decoded by hyparquet-compressors: Node 20's zlib has no zstd),
// so a row group is the smallest slice that can be decoded on its own.
import {
  asyncBufferFromFile,
  parquetMetadataAsync,
  parquetRead,
  type AsyncBuffer,
  type FileMetaData,
  type SchemaElement,
} from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { MAX_DELAY_MINUTES } from './delay-tally.js';

/** The columns a delay report needs, in the order the file stores them. */
const COLUMNS = ['date', 'delay', 'origin', 'destination'] as const;
type ColumnName = (typeof COLUMNS)[number];

const MICROSECONDS_PER_DAY = 86_400_000_000;

/** One row group of the file: where its rows sit among all the file's rows. */
export interface RowGroupRange {
  /** Position of the row group in the file, from 0. */
  readonly index: number;
  /** Index of its first row in the file, from 0. */
  readonly rowStart: number;
  /** Rows in the row group. */
  readonly rows: number;
}

/**
 * The flights of one row group, column by column: row `i` is `month[i]`, `delayMinutes[i]`,
 * `origin[i]`, `destination[i]`. Columns, not row objects, so a row group costs four arrays.
 */
export interface FlightColumns {
  /** Rows in each column. */
  readonly rows: number;
  /** Calendar month of the local departure date, `YYYY-MM`. */
  readonly month: readonly string[];
  /** Delay in whole minutes; negative means early. */
  readonly delayMinutes: Int32Array;
  /** IATA code of the departure airport. */
  readonly origin: readonly string[];
  /** IATA code of the arrival airport. */
  readonly destination: readonly string[];
}

function checkSchema(metadata: FileMetaData, path: string): void {
  const byName = new Map<string, SchemaElement>(metadata.schema.map((element) => [element.name, element]));
  const expect = (name: ColumnName, ok: (element: SchemaElement) => boolean, what: string): void => {
    const element = byName.get(name);
    if (!element || !ok(element)) throw new Error(`${path} has no ${what} column "${name}"`);
  };
  expect(
    'date',
    (e) => e.type === 'INT64' && e.logical_type?.type === 'TIMESTAMP' && e.logical_type.unit === 'MICROS',
    'INT64 TIMESTAMP(MICROS)',
  );
  expect('delay', (e) => e.type === 'INT64' || e.type === 'INT32', 'integer');
  for (const name of ['origin', 'destination'] as const) {
    expect(name, (e) => e.type === 'BYTE_ARRAY', 'string');
  }
}

/**
 * A flights parquet file opened for reading by row group: its footer is parsed once, then
 * {@link FlightsParquet.readRowGroup} reads only the bytes of the row group asked for.
 */
export class FlightsParquet {
  /** The file's path. */
  readonly path: string;
  /** Every row group, in file order. */
  readonly rowGroups: readonly RowGroupRange[];
  /** Rows in the whole file. */
  readonly rows: number;
  readonly #file: AsyncBuffer;
  readonly #metadata: FileMetaData;
  /** `YYYY-MM` by day number since 1970-01-01: a Date is built once per day, not per row. */
  readonly #monthByDay = new Map<number, string>();

  private constructor(path: string, file: AsyncBuffer, metadata: FileMetaData) {
    this.path = path;
    this.#file = file;
    this.#metadata = metadata;
    let rowStart = 0;
    this.rowGroups = metadata.row_groups.map((group, index) => {
      const range = { index, rowStart, rows: Number(group.num_rows) };
      rowStart += range.rows;
      return range;
    });
    this.rows = rowStart;
  }

  /**
   * Opens a file and reads its footer.
   *
   * @throws Error when the file cannot be read, is not parquet, or lacks a column a report needs
   */
  static async open(path: string): Promise<FlightsParquet> {
    let file: AsyncBuffer;
    let metadata: FileMetaData;
    try {
      file = await asyncBufferFromFile(path);
      metadata = await parquetMetadataAsync(file);
    } catch (error) {
      throw new Error(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    }
    checkSchema(metadata, path);
    return new FlightsParquet(path, file, metadata);
  }

  /**
   * Decodes the date, delay, origin and destination columns of one row group.
   *
   * @param index - row group position, from 0
   * @throws RangeError when the file has no such row group
   * @throws Error when a value is null or a column is cut short
   */
  async readRowGroup(index: number): Promise<FlightColumns> {
    const group = this.rowGroups[index];
    if (!Number.isInteger(index) || !group) {
      throw new RangeError(
        `${this.path} has row groups 0 to ${this.rowGroups.length - 1} (asked for ${index})`,
      );
    }
    const chunks = new Map<string, ArrayLike<unknown>>();
    await parquetRead({
      file: this.#file,
      metadata: this.#metadata,
      compressors,
      columns: [...COLUMNS],
      rowStart: group.rowStart,
      rowEnd: group.rowStart + group.rows,
      // The date column is dictionary-encoded, so this runs once per distinct timestamp, not per
      // row: each row gets its month string instead of a Date.
      parsers: { timestampFromMicroseconds: (micros: bigint) => this.#month(Number(micros)) },
      onChunk: (chunk) => chunks.set(chunk.columnName, chunk.columnData),
    });
    const column = (name: ColumnName): ArrayLike<unknown> => {
      const data = chunks.get(name);
      if (!data || data.length !== group.rows) {
        const got = data?.length ?? 0;
        throw new Error(
          `row group ${index} of ${this.path}: column ${name} has ${got} of ${group.rows} rows`,
        );
      }
      return data;
    };
    const [month, delays, origin, destination] = COLUMNS.map(column) as [
      ArrayLike<unknown>,
      ArrayLike<unknown>,
      ArrayLike<unknown>,
      ArrayLike<unknown>,
    ];
    const rows = group.rows;
    const delayMinutes = new Int32Array(rows);
    for (let i = 0; i < rows; i++) {
      const delay = delays[i];
      if (typeof month[i] !== 'string' || (typeof delay !== 'bigint' && typeof delay !== 'number')) {
        throw new Error(`row ${group.rowStart + i} of ${this.path} has no date or no delay`);
      }
      const from = origin[i];
      const to = destination[i];
      if (typeof from !== 'string' || from === '' || typeof to !== 'string' || to === '') {
        throw new Error(`row ${group.rowStart + i} of ${this.path} has no origin or no destination`);
      }
      const minutes = Number(delay);
      if (minutes < -MAX_DELAY_MINUTES || minutes > MAX_DELAY_MINUTES) {
        throw new Error(`row ${group.rowStart + i} of ${this.path} has a delay of ${minutes} minutes`);
      }
      delayMinutes[i] = minutes;
    }
    // Checked above: every month, origin and destination is a non-empty string.
    return {
      rows,
      month: month as readonly string[],
      delayMinutes,
      origin: origin as readonly string[],
      destination: destination as readonly string[],
    };
  }

  /** `YYYY-MM` of a wall-clock timestamp in µs (the file's times carry no zone: read them as UTC). */
  #month(micros: number): string {
    const day = Math.floor(micros / MICROSECONDS_PER_DAY);
    let month = this.#monthByDay.get(day);
    if (month === undefined) {
      month = new Date(day * 86_400_000).toISOString().slice(0, 7);
      this.#monthByDay.set(day, month);
    }
    return month;
  }
}
