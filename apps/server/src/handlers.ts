// `@nudge/server/handlers`: the handler-authoring API for handler modules (NUDGE_HANDLERS), from
// the package users install. It re-exports `@nudge/engine/handlers`, whose import graph holds no
// runtime: a handler module importing it loads no engine, store, Fastify or database driver.
export * from '@nudge/engine/handlers';
