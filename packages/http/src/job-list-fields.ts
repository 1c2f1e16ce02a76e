import { NudgeError } from '@nudge/core';

/** The fields of a job that `GET /jobs` leaves out unless `fields=` asks for them. */
export const OPTIONAL_JOB_FIELDS = ['payload', 'result'] as const;

/** One of {@link OPTIONAL_JOB_FIELDS}. */
export type OptionalJobField = (typeof OPTIONAL_JOB_FIELDS)[number];

/** Which optional fields a list read includes. */
export type JobListFields = Readonly<Record<OptionalJobField, boolean>>;

/**
 * Reads the `fields` parameter of `GET /jobs`: optional fields separated by commas, such as
 * `payload,result`; absent, none.
 * @throws NudgeError `INVALID_REQUEST` naming the first field that is not one of
 *   {@link OPTIONAL_JOB_FIELDS}, or an empty one
 */
export function parseJobListFields(text: string | undefined): JobListFields {
  const fields = { payload: false, result: false };
  if (text === undefined) return fields;
  for (const field of text.split(',')) {
    if (!(OPTIONAL_JOB_FIELDS as readonly string[]).includes(field)) {
      throw new NudgeError(
        'INVALID_REQUEST',
        `querystring/fields: ${JSON.stringify(field)} is not a field to ask for: list ${OPTIONAL_JOB_FIELDS.join(', ')} or both, separated by commas (the other fields are always there)`,
      );
    }
    fields[field as OptionalJobField] = true;
  }
  return fields;
}
