import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { describeValue } from '@nudge/core';

/** Schema keyword read by {@link describeValueError}: the accepted form, in words. */
export const EXPECTED_KEYWORD = 'x-expected';

type Describe = (schema: Record<string, unknown>) => string;

const number = (schema: Record<string, unknown>, key: string): string => String(schema[key]);

/** How to fix each kind of schema failure, as the end of "body/field …". */
const DESCRIPTIONS: Partial<Record<ValueErrorType, Describe>> = {
  [ValueErrorType.ObjectRequiredProperty]: () => 'is required',
  [ValueErrorType.ObjectAdditionalProperties]: (schema) => {
    const properties = Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {});
    return `is not allowed (allowed: ${properties.join(', ')})`;
  },
  [ValueErrorType.Object]: () => 'must be a JSON object',
  [ValueErrorType.Array]: () => 'must be a JSON array',
  [ValueErrorType.ArrayMinItems]: (schema) => `must hold at least ${number(schema, 'minItems')} items`,
  [ValueErrorType.ArrayMaxItems]: (schema) => `must hold at most ${number(schema, 'maxItems')} items`,
  [ValueErrorType.String]: () => 'must be a string',
  [ValueErrorType.StringMinLength]: (schema) =>
    `must be at least ${number(schema, 'minLength')} characters long`,
  [ValueErrorType.StringMaxLength]: (schema) =>
    `must be at most ${number(schema, 'maxLength')} characters long`,
  [ValueErrorType.StringPattern]: (schema) => `must match ${number(schema, 'pattern')}`,
  [ValueErrorType.StringFormat]: (schema) => `must be a ${number(schema, 'format')} string`,
  [ValueErrorType.Integer]: () => 'must be a whole number',
  [ValueErrorType.IntegerMinimum]: (schema) => `must be >= ${number(schema, 'minimum')}`,
  [ValueErrorType.IntegerMaximum]: (schema) => `must be <= ${number(schema, 'maximum')}`,
  [ValueErrorType.Number]: () => 'must be a number',
  [ValueErrorType.NumberMinimum]: (schema) => `must be >= ${number(schema, 'minimum')}`,
  [ValueErrorType.NumberMaximum]: (schema) => `must be <= ${number(schema, 'maximum')}`,
  [ValueErrorType.Boolean]: () => 'must be true or false',
  [ValueErrorType.Null]: () => 'must be null',
};

/** Errors whose value is not worth echoing back. */
const SILENT_VALUE = new Set([
  ValueErrorType.ObjectRequiredProperty,
  ValueErrorType.ObjectAdditionalProperties,
]);

/**
 * Says what is wrong with one value and what is accepted, as the predicate of a sentence whose
 * subject is the field: `must be >= 1 (got 0)`, `is required`, `is not allowed (allowed: …)`.
 *
 * A schema may state its accepted form in words under {@link EXPECTED_KEYWORD}
 * (`must be ${expected}`); otherwise the message is derived from the failed keyword, and falls
 * back to TypeBox's own message.
 */
export function describeValueError(error: ValueError): string {
  const schema = error.schema as unknown as Record<string, unknown>;
  const expected = schema[EXPECTED_KEYWORD];
  const missing = error.type === ValueErrorType.ObjectRequiredProperty;
  let text: string;
  if (typeof expected === 'string' && !missing && error.type !== ValueErrorType.ObjectAdditionalProperties) {
    text = `must be ${expected}`;
  } else {
    const describe = DESCRIPTIONS[error.type];
    text = describe ? describe(schema) : error.message.charAt(0).toLowerCase() + error.message.slice(1);
  }
  return SILENT_VALUE.has(error.type) ? text : `${text} (got ${describeValue(error.value)})`;
}
