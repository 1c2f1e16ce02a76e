import { Type, type TNull, type TObject, type TUnion } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { checkBodyWith, refusalOf } from './typebox-validator-compiler.js';

/**
 * A route body that may be left out: `schema`, or no body at all (Fastify then passes `null`, as
 * it does for a JSON `null`). A body that does not match is refused with `schema`'s own messages
 * naming each field (`/fromStep must be …`), not a union's "expected union value".
 */
export function optionalBody<T extends TObject>(schema: T, description: string): TUnion<[T, TNull]> {
  const body = Type.Union([schema, Type.Null()], { description });
  const check = TypeCompiler.Compile(schema);
  checkBodyWith(body, (value) =>
    value === null || check.Check(value) ? undefined : refusalOf(check, value, 'body'),
  );
  return body;
}
