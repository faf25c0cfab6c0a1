/**
 * `sturdy-rpc`: the pool (`HttpTransportPool`), its sessions, errors, events, snapshot and
 * executor types, and the pure helpers it is built from (retry decisions, `Retry-After`,
 * method classification, exact JSON). The guides are in the package's docs/ folder.
 *
 * @module sturdy-rpc
 */
export { HttpTransportPool, type AcquireOptions } from './pool/http-transport-pool.js';
export { HttpRequestPermit } from './admission/permit.js';
export type { ConsensusOptions, HeadKind, OriginatedAnswer, OriginRequestOptions, RequestOptions, RpcRequester } from './api/request-options.js';
export { PoolSession, type SessionRequestOptions } from './consistency/session.js';
export { PinnedOperation, type PinOptions } from './consistency/pinned-operation.js';
export type { BatchCall, BatchItemResult, BatchOptions, MicroBatchSettings } from './batch/types.js';
export type { PoolSnapshot, RoleSnapshot, EndpointSnapshot, KindSnapshot, CreditsSnapshot } from './pool/snapshot.js';
export type { SessionFacts, SeenItems } from './consistency/empty-answers.js';
export type { BlockRef } from './consistency/block-pin.js';
export type { CacheSnapshot } from './cache/cache-snapshot.js';
export type { CacheTally, KeptClass } from './cache/cache-tally.js';
export type { ReadClass } from './cache/read-rules.js';
export type { ConsensusSnapshot } from './consensus/consensus-snapshot.js';
export type { CacheSettings, CacheTtlSettings } from './cache/cache-settings.js';
export type { CacheEvent, ConsensusEvent } from './api/events.js';
export type { ChainStatus } from './parts/chain-guard.js';
export type { EndpointReputationView } from './parts/pool-health.js';
export type { ReputationView } from './reputation/tracker.js';
export type { ReputationBand } from './reputation/score.js';
export type { FailureSeverity, ReputationSignalKind } from './reputation/signals.js';
export type { IntegrityCheckName } from './integrity/types.js';
export type { EndpointHeadView, EndpointHealthState } from './parts/endpoint-health.js';
export type { HealthSettings } from './health/config.js';
export type { ArchivalKnowledge } from './health/archival-book.js';
export type { PoolLogger } from './logging/pool-logger.js';
export type { LogLevel } from './logging/log-rules.js';
export type { ServeStatusOptions, StatusServer, StatusDocument } from './status/status-server.js';
export type { RecentEndpointActivity } from './status/recent-activity.js';
export type {
  PoolEventMap,
  PoolEventName,
  PoolEventListener,
  AttemptEvent,
  SuccessEvent,
  FailureEvent,
  RateLimitedEvent,
  RateLearnedEvent,
  CreditBudgetEvent,
  ConcurrencyLearnedEvent,
  CooldownEvent,
  BreakerEvent,
  ReshapeEvent,
  ReputationEvent,
  ChainEvent,
  ReconcileEvent,
  HedgeEvent,
  HeadEvent,
  ProbeEvent,
  FleetEvent,
  EventBase,
  CallEventBase,
} from './api/events.js';
export type {
  Subscription,
  SubscriptionItem,
  NotificationItem,
  GapItem,
  GapReason,
  RebindItem,
  OverflowItem,
  ResyncItem,
  BackfillOption,
  BackfillBounds,
  RebindReason,
  SubscribeOptions,
  SubscriptionSettings,
  OverflowPolicy,
  SubscriptionEvent,
} from './subscriptions/types.js';
export type { SubscriptionEndpointSnapshot } from './subscriptions/manager.js';
export { wsSocketFactory, webSocketFactory, type WsConstructor, type WsLike, type SocketFactory, type SocketHandlers, type SocketFailure, type SocketOptions, type SubscriptionSocket } from './subscriptions/socket.js';
export type { Subscriber } from './subscriptions/mapped.js';
export type { PoolFleet, FleetJoinOptions, FleetMembership, FleetFact, FleetTopic, FleetBucketSpec, FleetStatus, FleetMode, SpendTotals } from './fleet/types.js';
export type { BalanceSettings } from './balance/balance-settings.js';
export type { CreditTable } from './admission/credit-meter.js';
export type { HedgeSettings } from './balance/hedge-policy.js';
export type {
  HttpTransportPoolOptions,
  EndpointConfig,
  RoleSettings,
  LearnedRateOptions,
  CreditPlanOptions,
  LearnedConcurrencyOptions,
  RetrySettings,
  RetryEmptySettings,
  ConcentrationSettings,
  MethodClassification,
  MethodSettings,
  ExpectedChain,
  IntegritySettings,
} from './config/types.js';
export { TransportError, isTransportError, type TransportErrorOptions, type AttemptRecord, type ConfigIssue, type TransportErrorContextByCode } from './errors/transport-error.js';
export { TRANSPORT_ERROR_CODES, type TransportErrorCode } from './errors/codes.js';
export type { WaitingFor, WaitingReason } from './errors/waiting-for.js';
export { redactUrl, type RedactUrlOptions } from './errors/redact.js';
export {
  evaluateTransportRetry,
  type EvaluateTransportRetryParameters,
  type EvaluateTransportRetryReturnType,
  type RetryStopReason,
  type TransportRetrySettings,
} from './retry/evaluate.js';
export { backoffDelayMs, type BackoffSettings } from './retry/backoff.js';
export { parseRetryAfter } from './retry/retry-after.js';
export type { FailureCause, DispatchState, RetryClass, RequestKind } from './retry/causes.js';
export { classifyMethod, type ClassifyMethodResult } from './jsonrpc/method-table.js';
export type { JsonRpcErrorObject } from './jsonrpc/envelope.js';
export type { ClassifiedFailure } from './http/outcome.js';
export { parseJsonExact, stringifyJson } from './jsonrpc/exact-json.js';
export { TokenBucket, type AdmissionBucket } from './admission/token-bucket.js';
export type { Availability } from './admission/role-state.js';
export type { LearnedRateReason, LearnedRateSettings } from './admission/learned-rate.js';
export { systemClock, systemRandom, createSeededRandom, type Clock, type Random, type TimerHandle, type TimerOptions } from './clock.js';
export type { HttpExecutor, ExecuteRequest, ExecutorTarget, RawOutcome, ExecutorErrorKind } from './http/executor.js';
export type { Cancellation } from './http/attempt-abort.js';
export { createUndiciExecutor, type UndiciExecutorOptions } from './http/undici-executor.js';
export { createFetchExecutor, type FetchExecutorOptions } from './http/fetch-executor.js';
