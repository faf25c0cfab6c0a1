/**
 * The pool's one door to `src/subscriptions/`: which endpoints take subscriptions (their
 * WebSocket URL), where each stands in rotation (tier, reputation band, chain guard,
 * bench), and which pool events take an endpoint out of rotation (its subscriptions then
 * move). An endpoint that starts lagging behind the tip (`head` event) moves its subscriptions too.
 */
import type { RoleState } from '../admission/role-state.js';
import type { Clock, Random } from '../clock.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../config/normalize.js';
import type { HttpTransportPoolOptions } from '../config/types.js';
import type { NormalizedEndpoint } from '../config/normalize.js';
import type { SubscriptionSettings } from '../subscriptions/types.js';
import type { EndpointStanding, SubscriptionEndpointSnapshot, WsEndpoint } from '../subscriptions/endpoint-states.js';
import type { SubscriptionManager } from '../subscriptions/manager.js';
import { backfillSchema, resolveSubscriptionSettings, wsUrlOf, type ResolvedSubscriptionSettings } from '../subscriptions/settings.js';
import { meterDecision, type MeterDecision } from '../subscriptions/resubscribe-meter.js';
import type { SubscribeOptions, Subscription } from '../subscriptions/types.js';
import type { ChainGuard } from './chain-guard.js';
import type { PoolEvents } from '../api/events.js';
import type { CandidateFilter } from '../admission/admission-model.js';
import { TransportError } from '../errors/transport-error.js';
import type { RequestOptions } from '../api/request-options.js';

/** `INVALID_INPUT` for a subscribe call that must not reach a socket; undefined when it may. */
function badSubscribeInput(method: unknown, params: unknown, options: SubscribeOptions): TransportError<'INVALID_INPUT'> | undefined {
  const invalid = (field: string, message: string) => new TransportError('INVALID_INPUT', message, { context: { field } });
  if (typeof method !== 'string' || method.length === 0) return invalid('method', 'method must be a non-empty string');
  if (!Array.isArray(params)) return invalid('params', 'params must be an array');
  for (const [field, value] of [['timeoutMs', options.timeoutMs], ['expectedIntervalMs', options.expectedIntervalMs]] as const) {
    if (value !== undefined && !(value > 0 && Number.isFinite(value))) return invalid(field, `${field} must be a finite number > 0`);
  }
  for (const [field, value] of [['bufferSize', options.bufferSize], ['bufferBytes', options.bufferBytes]] as const) {
    if (value !== undefined && !(Number.isInteger(value) && value > 0)) return invalid(field, `${field} must be an integer > 0`);
  }
  if (options.redundancy !== undefined && options.redundancy !== 1 && options.redundancy !== 2) return invalid('redundancy', 'redundancy must be 1 or 2');
  const backfill = options.backfill === undefined ? undefined : backfillSchema.safeParse(options.backfill);
  if (backfill?.success === false) return invalid('backfill', 'backfill must be a boolean or { maxBlocks?: integer > 0, maxMs?: number > 0 }');
  return undefined;
}

export interface PoolSubscriptionsParts {
  readonly endpoints: readonly NormalizedEndpoint[];
  readonly roles: readonly RoleState[];
  /** Reputation, the host breaker and lag: an excluded endpoint takes subscriptions only when no other can. */
  readonly health: Pick<CandidateFilter, 'isExcluded'>;
  readonly chainGuard: ChainGuard | undefined;
  readonly events: PoolEvents;
  readonly clock: Clock;
  readonly random: Random;
  readonly maxOperatorShare: number;
  readonly redact: (text: string) => string;
  /** A call through the pool's request path (backfill after a rebind). */
  readonly request: (method: string, params: readonly unknown[], options: RequestOptions) => Promise<unknown>;
  /** `subscriptions`, and `maxResponseBytes`: WebSocket frames follow the HTTP body bound unless `maxFrameBytes` is set. */
  readonly options: Pick<HttpTransportPoolOptions, 'subscriptions' | 'maxResponseBytes'>;
}

/** The WebSocket URLs of `endpoints` (explicit, or derived with `deriveWsUrl`): secrets for the redactor. */
export function wsUrlsOf(endpoints: readonly NormalizedEndpoint[], settings: SubscriptionSettings | undefined): string[] {
  const derive = settings?.deriveWsUrl ?? false;
  return endpoints.flatMap((endpoint) => wsUrlOf(endpoint, derive) ?? []);
}

/**
 * The pool's subscriptions. The manager (sockets, placement, rebinding: about a fifth of the
 * pool's code) is loaded with `import()` on the first `subscribe()`, which is async anyway, so
 * a page that only reads never downloads it; until then every endpoint is idle.
 */
export class PoolSubscriptions {
  #manager: SubscriptionManager | undefined;
  #loading: Promise<SubscriptionManager> | undefined;
  #closed = false;
  readonly #settings: ResolvedSubscriptionSettings;
  readonly #endpoints: readonly WsEndpoint[];
  readonly #parts: PoolSubscriptionsParts;
  readonly #roleOf = new Map<string, RoleState>();
  #listening = false;
  readonly #unlisten: (() => void)[] = [];

  constructor(parts: PoolSubscriptionsParts) {
    this.#parts = parts;
    const settings = resolveSubscriptionSettings(parts.options.subscriptions, parts.options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
    for (const role of parts.roles) {
      const known = this.#roleOf.get(role.endpointId);
      // Subscriptions are reads: the endpoint's read role speaks for it (else its first role).
      if (known === undefined || (known.settings.kind !== 'read' && role.settings.kind === 'read')) this.#roleOf.set(role.endpointId, role);
    }
    this.#settings = settings;
    this.#endpoints = parts.endpoints.flatMap((endpoint) => {
      const wsUrl = wsUrlOf(endpoint, settings.deriveWsUrl);
      return wsUrl === undefined ? [] : [{ id: endpoint.id, operator: endpoint.operator, wsUrl, headers: endpoint.headers }];
    });
  }

  async subscribe<T>(method: string, params: readonly unknown[], options: SubscribeOptions): Promise<Subscription<T>> {
    const bad = badSubscribeInput(method, params, options);
    if (bad !== undefined) throw bad;
    if ((options.redundancy ?? this.#settings.redundancy) === 2 && this.#endpoints.length < 2) {
      throw new TransportError('INVALID_INPUT', 'redundancy 2 needs two endpoints with a WebSocket URL', { context: { field: 'redundancy' } });
    }
    this.#listen();
    // A pool closed while the manager loaded: the manager was shut down, and refuses.
    return (this.#manager ?? (await this.#load(method))).subscribe<T>(method, params, options);
  }

  /** Moves every subscription off `endpointId` (it left rotation: bench, wrong chain, lag). */
  leaveRotation(endpointId: string): void {
    // No manager yet: no subscription to move.
    this.#manager?.leaveRotation(endpointId);
  }

  snapshot(): SubscriptionEndpointSnapshot[] {
    return this.#manager?.snapshot() ?? this.#endpoints.map((endpoint) => ({
      endpointId: endpoint.id, sockets: 0, subscriptions: 0, pausedForMs: 0, consecutiveFailures: 0, unknownNotifications: 0, garbageFrames: 0, callers: 0, shared: 0, redundant: 0,
    }));
  }

  close(): void {
    this.#closed = true;
    for (const unlisten of this.#unlisten.splice(0)) unlisten();
    this.#manager?.shutdown();
  }

  #load(method: string): Promise<SubscriptionManager> {
    this.#loading ??= Promise.all([import('../subscriptions/manager.js'), import('../subscriptions/socket.js')]).then(([{ SubscriptionManager }, { defaultSocketFactory }]) => {
      const parts = this.#parts;
      const manager = new SubscriptionManager(
        {
          clock: parts.clock,
          random: parts.random,
          endpoints: this.#endpoints,
          maxOperatorShare: parts.maxOperatorShare,
          standing: (endpointId, nowMs) => this.#standing(endpointId, nowMs),
          emit: (event) => parts.events.emit('subscription', event),
          redact: parts.redact,
          loadSocketFactory: defaultSocketFactory,
          meterResubscribe: (endpointId, nowMs) => this.#meter(endpointId, nowMs, this.#settings.backoff.initialBackoffMs),
          request: parts.request,
        },
        this.#settings,
      );
      if (this.#closed) manager.shutdown();
      this.#manager = manager;
      return manager;
    }, (error: unknown) => {
      // A chunk that failed to load (a flaky network in a browser) is not remembered: the next subscribe() loads it again.
      this.#loading = undefined;
      throw new TransportError('SUBSCRIPTION_FAILED', 'The subscription code could not be loaded', { context: { method, reason: 'load-failed' }, method, cause: error });
    });
    return this.#loading;
  }

  /** A resubscribe to `endpointId` takes a token of its read role, as an HTTP call would (see resubscribe-meter.ts). */
  #meter(endpointId: string, nowMs: number, retryMs: number): MeterDecision {
    const role = this.#roleOf.get(endpointId)!;
    const bucket = role.bucket;
    const decision = meterDecision(nowMs, role.cooldownUntilMs, bucket?.waitMs(nowMs), retryMs);
    if (decision.type === 'go') bucket?.tryTake(nowMs);
    else if (decision.type === 'reserve') bucket?.charge(1, nowMs);
    return decision;
  }

  #standing(endpointId: string, nowMs: number): EndpointStanding {
    const role = this.#roleOf.get(endpointId)!;
    const tier = role.settings.tier;
    if (role.disabled) return { tier, band: role.band, status: 'gone' };
    if (role.chainPending) {
      // Starts the endpoint's chain check if none runs: subscriptions wait for its verdict.
      this.#parts.chainGuard?.pending(role, nowMs);
      return { tier, band: role.band, status: 'pending' };
    }
    const excluded = this.#parts.health.isExcluded(role, nowMs);
    return { tier, band: role.band, status: excluded ? 'benched' : 'eligible' };
  }

  /** Pool events that take an endpoint out of rotation, heard only once someone subscribes. */
  #listen(): void {
    if (this.#listening) return;
    this.#listening = true;
    const events = this.#parts.events;
    this.#unlisten.push(
      events.on('chain', (e) => e.status === 'wrong-chain' && this.leaveRotation(e.endpointId)),
      events.on('reputation', (e) => e.change === 'cooldown-start' && this.leaveRotation(e.endpointId)),
      events.on('head', (e) => e.state === 'lagging' && this.leaveRotation(e.endpointId)),
      events.on('breaker', (e) => {
        if (e.state === 'open') for (const id of e.endpointIds) this.leaveRotation(id);
      }),
    );
  }
}
