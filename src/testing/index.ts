/**
 * `sturdy-rpc/testing`: tools for testing code that talks to RPC nodes — a fake clock, a
 * seeded random, recorded fixtures, a fault-injecting fixture server and a recorder. The
 * msw handlers live in `sturdy-rpc/testing/msw`, so this entry never imports msw.
 *
 * @module sturdy-rpc/testing
 */
export { createFakeClock, type FakeClock, type CreateFakeClockOptions } from './fake-clock.js';
export { createSeededRandom, type Clock, type Random, type TimerHandle } from '../clock.js';
export { loadFixtures, parseFixture, fixtureSchema, resultFixture, type Fixture } from './fixtures.js';
export { fixturesDir } from './fixtures-dir.js';
export type { FixtureServerCors } from './cors.js';
export {
  createFixtureServer,
  type CreateFixtureServerOptions,
  type FixtureServer,
  type FixtureServerHead,
  type FixtureServerRequest,
} from './fixture-server.js';
export type {
  BehaviourTrigger,
  CloseBehaviour,
  FixtureServerBehaviour,
  FixtureServerBehaviours,
  HangBehaviour,
  HtmlBehaviour,
  HttpErrorBehaviour,
  LagBehaviour,
  LatencyBehaviour,
  RateLimitBehaviour,
  ResetBehaviour,
  TruncateBehaviour,
  WrongGenesisBehaviour,
} from './behaviours.js';
export { ANVIL_GENESIS_HASH, DEFAULT_UNHEALTHY_ABOVE_SLOTS } from './fault-answers.js';
export { createRecorder, type CreateRecorderOptions, type Recorder } from './recorder.js';
export type { FixtureWebSocket, FixtureWebSocketOptions, FixtureUpgradeMode, FixtureSubscribeMode } from './fixture-websocket.js';
