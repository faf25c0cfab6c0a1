/**
 * Local reputation system and host circuit breaker: pure, synchronous
 * building blocks the pool wires to its clock and events. Internal entry point — the
 * package's public surface is `src/index.ts`.
 */
export * from './collapse-guard.js';
export * from './config.js';
export * from './detectors.js';
export * from './host-breaker.js';
export * from './keys.js';
export * from './score.js';
export type * from './signals.js';
export * from './store.js';
export * from './tracker.js';
