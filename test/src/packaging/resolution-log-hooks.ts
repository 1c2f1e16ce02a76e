// Module hooks (`module.register`) that append every URL the loader resolves to a file, one a
// line, before the import goes on: once an `await import()` settles, the file lists its graph.
import { appendFileSync } from 'node:fs';

/** What `register` passes to {@link initialize}. */
export interface ResolutionLogData {
  /** The file each resolved URL is appended to. */
  readonly logFile: string;
}

let logFile: string | undefined;

/** Takes the log file from `register`'s `data`. */
export function initialize(data: ResolutionLogData): void {
  logFile = data.logFile;
}

type NextResolve = (specifier: string, context: unknown) => Promise<{ url: string }>;

/** Resolves as Node would, then logs the URL (synchronously, so no line is lost on exit). */
export async function resolve(
  specifier: string,
  context: unknown,
  next: NextResolve,
): Promise<{ url: string }> {
  const result = await next(specifier, context);
  if (logFile) appendFileSync(logFile, `${result.url}\n`);
  return result;
}
