import { Type, type Static } from '@sinclair/typebox';
import { EXPECTED_KEYWORD } from './describe-value-error.js';

/**
 * Params of `GET /jobs/:id`: a positive whole number in decimal, without sign, leading zeros or
 * exponent, and at most 15 digits so it stays an exact JavaScript number.
 */
export const jobIdParamsSchema = Type.Object({
  id: Type.String({
    pattern: '^[1-9][0-9]{0,14}$',
    [EXPECTED_KEYWORD]: 'a positive whole number such as 42',
  }),
});

/** The static type of {@link jobIdParamsSchema}. */
export type JobIdParams = Static<typeof jobIdParamsSchema>;
