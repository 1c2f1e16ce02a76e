import type { Static, TSchema } from '@sinclair/typebox';
import type { JsonValue } from '@nudge/core';
import type { Handler, KindDeclaration } from './handler.js';

/** The payload type a kind's `schema` gives its handler: `Static<schema>`, or any JSON without one. */
export type PayloadOf<Schema> = [Schema] extends [TSchema] ? Static<Schema> : JsonValue;

/**
 * One entry of {@link defineHandlers}: a bare handler (a `cpu` kind, payload `JsonValue`), or a
 * definition whose handler receives the payload typed from its TypeBox `schema`.
 */
export type HandlerEntry<Schema> =
  | Handler
  | (Omit<KindDeclaration, 'schema'> & {
      readonly schema?: Schema;
      readonly handler: Handler<PayloadOf<Schema>>;
    });

declare const payloadTypes: unique symbol;

/**
 * What {@link defineHandlers} returns: the handler map as given, plus a type-only record of each
 * kind's payload type that {@link PayloadsOf} reads (nothing of it exists at run time).
 */
export type DefinedHandlers<Schemas> = { readonly [K in keyof Schemas]: HandlerEntry<Schemas[K]> } & {
  readonly [payloadTypes]?: { [K in keyof Schemas]: PayloadOf<Schemas[K]> };
};

/**
 * The payload type of each kind of a handler map from {@link defineHandlers}, for producers that
 * share the schemas: `{ [kind]: Static<schema> }`, `JsonValue` for a kind without one.
 *
 * @example
 * ```ts
 * import type { PayloadsOf } from '@nudge/engine/handlers';
 * import type handlers from './handlers.js';
 * type Payloads = PayloadsOf<typeof handlers>; // { sendEmail: { to: string }, … }
 * ```
 */
export type PayloadsOf<Handlers> = Handlers extends { readonly [payloadTypes]?: infer Payloads }
  ? NonNullable<Payloads>
  : never;

/**
 * Declares a handler module's kinds with typed payloads: each handler's `payload` is typed from
 * its TypeBox `schema` (a definition without one, or a bare function, gets `JsonValue`). Make
 * the result the module's **default export**, whose keys are the kinds (named exports keep
 * working beside it, and a kind in both takes the default export's entry). An app's handler
 * module imports it from `@nudge/server/handlers`, which re-exports this API:
 *
 * @example
 * ```ts
 * import { Type } from '@sinclair/typebox';
 * import { defineHandlers } from '@nudge/engine/handlers';
 *
 * export default defineHandlers({
 *   sendEmail: {
 *     schema: Type.Object({ to: Type.String({ format: 'email' }) }),
 *     execution: 'async',
 *     maxAttempts: 3,
 *     handler: async (payload, ctx) => send(payload.to, ctx.signal), // payload: { to: string }
 *   },
 *   resize: (payload) => resize(payload), // payload: JsonValue
 * });
 * ```
 *
 * It returns its argument unchanged; declarations are checked when the engine loads the module
 * (`HANDLERS_INVALID`).
 */
export function defineHandlers<Schemas extends Record<string, unknown>>(handlers: {
  readonly [K in keyof Schemas]: HandlerEntry<Schemas[K]>;
}): DefinedHandlers<Schemas> {
  return handlers;
}
