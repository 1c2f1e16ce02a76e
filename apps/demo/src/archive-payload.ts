/** The payload of an `archiveReport` job, defaults filled in. */
export interface ArchivePayload {
  /** File name without extension: letters, digits, `.`, `_`, `-`; not starting with a dot. */
  readonly name: string;
  /** Any JSON value: the report to archive. */
  readonly report: unknown;
  /**
   * Folder of the archive, created if missing; relative to the server's working directory.
   * @defaultValue `'./output/reports'`
   */
  readonly outputDir: string;
}

/** Where archives go when the payload names no folder. */
export const DEFAULT_OUTPUT_DIR = './output/reports';

const NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

/**
 * Checks an `archiveReport` payload, e.g. `{"name": "delays-ORD", "report": {…}}`.
 *
 * @throws Error naming the field at fault
 */
export function parseArchivePayload(payload: unknown): ArchivePayload {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    throw new Error('the payload must be an object like {"name": "delays-ORD", "report": {…}}');
  }
  const { name, report, outputDir = DEFAULT_OUTPUT_DIR } = payload as Record<string, unknown>;
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new Error(
      `payload.name must be 1 to 128 letters, digits, ".", "_" or "-", not starting with "." (got ${JSON.stringify(name)})`,
    );
  }
  if (report === undefined) throw new Error('payload.report is missing: give the JSON value to archive');
  if (typeof outputDir !== 'string' || outputDir.trim() === '') {
    throw new Error(`payload.outputDir must be a folder path (got ${JSON.stringify(outputDir)})`);
  }
  return { name, report, outputDir };
}
