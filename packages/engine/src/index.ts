export { Engine } from './engine.js';
export type { EngineEvents, EngineEventName } from './engine-events.js';
export { resolveEngineOptions, type EngineOptions, type ResolvedEngineOptions } from './engine-options.js';
export type { Handler, HandlerContext } from './pool/handler.js';
