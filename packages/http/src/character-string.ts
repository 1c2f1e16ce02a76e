import { Kind, Type, TypeRegistry, type TUnsafe } from '@sinclair/typebox';
import { hasCharacterCountIn } from '@nudge/core';

/** The TypeBox kind of {@link characterString}, checked by the function registered for it. */
const CHARACTER_STRING = 'NudgeCharacterString';

/** Options of {@link characterString}: JSON Schema's string keywords, and any annotations. */
export interface CharacterStringOptions {
  /** Fewest characters (Unicode code points). */
  readonly minLength: number;
  /** Most characters (Unicode code points). */
  readonly maxLength: number;
  readonly [annotation: string]: unknown;
}

interface CharacterStringSchema {
  readonly minLength: number;
  readonly maxLength: number;
}

if (!TypeRegistry.Has(CHARACTER_STRING)) {
  TypeRegistry.Set<CharacterStringSchema>(
    CHARACTER_STRING,
    (schema, value) =>
      typeof value === 'string' && hasCharacterCountIn(value, schema.minLength, schema.maxLength),
  );
}

/**
 * A string schema whose `minLength` and `maxLength` count characters (Unicode code points), as
 * JSON Schema and the job contract define them: TypeBox's own string type counts UTF-16 units, so
 * 101 emoji would break a 200-character limit. The schema documents as `{type: 'string',
 * minLength, maxLength}`; a value out of range fails with the schema's `x-expected` words.
 */
export function characterString(options: CharacterStringOptions): TUnsafe<string> {
  return Type.Unsafe<string>({ ...options, type: 'string', [Kind]: CHARACTER_STRING });
}
