// The handler-authoring API: what a handler module imports (`@nudge/engine/handlers`, re-exported
// as `@nudge/server/handlers`). Types and one identity function only: importing it loads none of
// the engine, its threads, the store or a database driver.
export type {
  FollowUpOptions,
  Handler,
  HandlerContext,
  HandlerDefinition,
  HandlerExport,
  JobDependency,
  JobLog,
  JobLogFieldsInput,
  JsonSchema,
  KindDeclaration,
  KindInfo,
  ProgressValue,
} from './handler.js';
export {
  defineHandlers,
  type DefinedHandlers,
  type HandlerEntry,
  type PayloadOf,
  type PayloadsOf,
} from './define-handlers.js';
