import { FormatRegistry } from '@sinclair/typebox';
import { isIsoDateTime } from '@nudge/core';

export { isIsoDateTime };

/** Name of the string format `isIsoDateTime` (from `@nudge/core`) checks, as in JSON Schema. */
export const DATE_TIME_FORMAT = 'date-time';

/**
 * Registers {@link isIsoDateTime} as TypeBox's `date-time` format (TypeBox ships no formats).
 * The registry is process-wide; registering again replaces the checker with the same one.
 */
export function registerDateTimeFormat(): void {
  FormatRegistry.Set(DATE_TIME_FORMAT, isIsoDateTime);
}
