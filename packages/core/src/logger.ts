/**
 * The logging calls nudge makes; a pino logger (as Fastify creates) fits it as is.
 * The first argument carries structured fields, the second the human message.
 */
export interface Logger {
  debug(fields: object, message?: string): void;
  info(fields: object, message?: string): void;
  warn(fields: object, message?: string): void;
  error(fields: object, message?: string): void;
}

/** A {@link Logger} that drops everything; the default of libraries. */
export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
