import { NudgeError } from '@nudge/core';

/** Refuses to run against a schema migrated by newer code. @throws NudgeError `SCHEMA_TOO_NEW` */
export function assertSchemaNotNewer(applied: number, latest: number): void {
  if (applied > latest) {
    throw new NudgeError(
      'SCHEMA_TOO_NEW',
      `the database schema is at version ${applied} but this nudge knows only up to ${latest}: upgrade nudge before starting it against this database`,
    );
  }
}
