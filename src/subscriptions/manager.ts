/**
 * Subscriptions and their sockets: placement under tiers, bands and the operator cap,
 * sockets shared per endpoint (bounded subscriptions per socket), rebind and resubscribe
 * when a socket dies or its endpoint leaves rotation, and close. The decisions are the pure
 * parts of this folder; this class only carries them out.
 */
import { TimerQueue, type Clock, type QueuedTimer, type Random } from '../clock.js';
import { poolClosedError } from '../errors/transport-error.js';
import type { Connection } from './connection.js';
import { abortedError, noEndpointError, noSocketError, refusalError, timeoutError } from './placement-errors.js';
import { endpointPauseMs, waitForCandidateMs } from './rebind-backoff.js';
import { resubscribeJitterMs, type MeterDecision } from './resubscribe-meter.js';
import { SocketRpcError } from './socket-errors.js';
import { SocketMembers } from './socket-members.js';
import { CLOSED, sleepWhilePlacing, unlessClosed } from './waits.js';
import { EndpointStates, type EndpointStanding, type EndpointState, type SubscriptionEndpointSnapshot, type WsEndpoint } from './endpoint-states.js';
import { selectEndpoint } from './selection.js';
import type { ResolvedSubscriptionSettings } from './settings.js';
import { subscriptionOptionsOf } from './subscription-options.js';
import { linkCounts, SharedSubscriptions } from './shared-subscriptions.js';
import type { SocketFactory, SocketFailure } from './socket.js';
export type { EndpointStanding, SubscriptionEndpointSnapshot, WsEndpoint } from './endpoint-states.js';
import type { BackfillRequest } from './backfill.js';
import { ManagedSubscription, type SubscriptionLink, type SubscriptionOwner } from './subscription.js';
import type { RebindReason, SubscribeOptions, Subscription, SubscriptionEvent } from './types.js';

/** What the manager needs from the pool (see parts/subscriptions.ts). */
export interface SubscriptionHost {
  readonly clock: Clock;
  readonly random: Random;
  readonly endpoints: readonly WsEndpoint[];
  readonly maxOperatorShare: number;
  standing(endpointId: string, nowMs: number): EndpointStanding;
  emit(event: SubscriptionEvent): void;
  /** Removes secrets from text a node sent (error messages). */
  redact(text: string): string;
  /** The default socket factory, loaded on first use. */
  loadSocketFactory(): Promise<SocketFactory | undefined>;
  /** One more resubscribe to `endpointId` now, metered by its role's limits (takes or reserves a token). */
  meterResubscribe(endpointId: string, nowMs: number): MeterDecision;
  readonly request: BackfillRequest;
}

export class SubscriptionManager implements SubscriptionOwner {
  readonly #host: SubscriptionHost;
  readonly #settings: ResolvedSubscriptionSettings;
  readonly #timers: TimerQueue;
  readonly #endpoints: EndpointStates;
  readonly #subscriptions = new Set<ManagedSubscription>();
  readonly #members: SocketMembers;
  readonly #streams: SharedSubscriptions;
  #factory: Promise<SocketFactory | undefined> | undefined;
  #nextId = 0;
  /** Drawn on the first placement, not at construction: a pool that never subscribes leaves the injected random's sequence untouched. */
  #rotation: number | undefined;
  #closed = false;

  constructor(host: SubscriptionHost, settings: ResolvedSubscriptionSettings) {
    this.#host = host;
    this.#settings = settings;
    this.#timers = new TimerQueue(host.clock);
    this.#endpoints = new EndpointStates(host.endpoints);
    this.#members = new SocketMembers(this.#endpoints, settings, {
      clock: host.clock,
      timers: this.#timers,
      settings,
      onDead: (connection, reason, failure) => this.#onDead(connection, reason, failure),
    });
    this.#streams = new SharedSubscriptions({ settings, timers: this.#timers, open: (...call) => this.#open(...call), now: () => this.now(), emit: (event) => this.emit(event) });
  }

  now(): number {
    return this.#host.clock.now();
  }

  emit(event: SubscriptionEvent): void {
    this.#host.emit(event);
  }

  subscribe<T>(method: string, params: readonly unknown[], options: SubscribeOptions): Promise<Subscription<T>> {
    // Shared or redundant streams open their node subscriptions through #open (shared-subscriptions.ts).
    if (this.#settings.share || (options.redundancy ?? this.#settings.redundancy) === 2) return this.#streams.subscribe<T>(method, params, options);
    return this.#open(method, params, options, undefined) as Promise<Subscription> as Promise<Subscription<T>>;
  }

  /** One node subscription: a caller's own, or (with `link`) one a shared or redundant stream reads. */
  async #open(method: string, params: readonly unknown[], options: SubscribeOptions, link: SubscriptionLink | undefined): Promise<ManagedSubscription> {
    if (this.#endpoints.size === 0) throw noEndpointError(method, 'no-url');
    const factory = await (this.#factory ??= this.#settings.socketFactory ? Promise.resolve(this.#settings.socketFactory) : this.#host.loadSocketFactory());
    if (factory === undefined) throw noSocketError(method);
    if (this.#closed) throw poolClosedError();
    const signal = options.signal;
    if (signal?.aborted) throw abortedError(method, signal.reason);
    const sub = new ManagedSubscription(this, subscriptionOptionsOf(++this.#nextId, method, params, options, this.#settings, link, this.#host.request));
    this.#subscriptions.add(sub);
    if (signal !== undefined) {
      const onAbort = () => void sub.close();
      signal.addEventListener('abort', onAbort, { once: true });
      this.#onClosed.set(sub, () => signal.removeEventListener('abort', onAbort));
    }
    await this.#placeFirst(sub, factory, options.timeoutMs ?? this.#settings.subscribeTimeoutMs, signal);
    return sub;
  }

  readonly #onClosed = new WeakMap<ManagedSubscription, () => void>();

  /** Rebinds every subscription on `endpointId` elsewhere (reputation bench, wrong chain, lag). */
  leaveRotation(endpointId: string): void {
    for (const connection of [...(this.#endpoints.get(endpointId)?.connections ?? [])]) connection.kill('left-rotation');
  }

  async close(subscription: ManagedSubscription): Promise<void> {
    if (subscription.state === 'closed') return;
    const connection = subscription.connection;
    const serverId = subscription.serverId;
    const wasLive = subscription.state === 'live';
    this.#finish(subscription);
    subscription.end();
    if (connection !== undefined && wasLive && !connection.dead) {
      // Bounded by requestTimeoutMs; a node that does not answer loses nothing but its own state.
      await connection.request(subscription.profile.unsubscribeMethod, [serverId]).catch(() => undefined);
    }
    if (connection !== undefined) this.#members.maybeIdle(connection);
  }

  complete(subscription: ManagedSubscription): void {
    const connection = subscription.connection;
    this.#finish(subscription);
    if (connection !== undefined) this.#members.maybeIdle(connection);
  }

  overflowed(subscription: ManagedSubscription): void {
    void this.close(subscription);
  }

  snapshot(): SubscriptionEndpointSnapshot[] {
    return this.#endpoints.snapshot(this.now(), linkCounts(this.#subscriptions));
  }

  /** Ends every iterator and closes every socket (no unsubscribe calls: closing the socket frees the node's state). */
  shutdown(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const sub of [...this.#subscriptions]) {
      this.#finish(sub);
      sub.end();
    }
    this.#members.disposeAll();
  }

  async #placeFirst(sub: ManagedSubscription, factory: SocketFactory, timeoutMs: number, signal: AbortSignal | undefined): Promise<void> {
    const deadline: QueuedTimer = { dueMs: 0, fire: () => this.#finish(sub) };
    this.#timers.add(deadline, timeoutMs);
    try {
      await this.#place(sub, factory, undefined);
    } finally {
      this.#timers.remove(deadline);
    }
    if (sub.everLive && sub.state !== 'closed') {
      this.emit({ atMs: this.now(), phase: 'opened', method: sub.method, subscriptionId: sub.id, endpointId: sub.endpointId });
      return;
    }
    if (sub.everLive) return; // closed right after it opened (a signature that was already confirmed)
    this.#finish(sub);
    if (sub.refusal !== undefined) throw sub.refusal;
    if (this.#closed) throw poolClosedError();
    if (signal?.aborted) throw abortedError(sub.method, signal.reason);
    if (sub.noEndpoint) throw noEndpointError(sub.method, 'wrong-chain');
    throw timeoutError(sub.method, timeoutMs, sub.lastFailure, sub.lastFailedEndpoint);
  }

  /** Places `sub` on an endpoint and subscribes; loops (failover, backoff) until live or closed. */
  async #place(sub: ManagedSubscription, factory: SocketFactory, rebind: { from: string; reason: RebindReason } | undefined): Promise<void> {
    // Subscriptions leaving a dead socket do not all look at once (see resubscribe-meter.ts).
    if (rebind !== undefined) await sleepWhilePlacing(this.#timers, sub, resubscribeJitterMs(this.#settings.backoff, this.#host.random));
    let reserved: string | undefined;
    while (sub.state === 'placing') {
      const now = this.now();
      const choice = selectEndpoint(this.#endpoints.candidates(this.#host.standing, now), {
        avoid: sub.lastFailedEndpoint,
        apart: sub.link?.partnerEndpoint(),
        maxOperatorShare: this.#host.maxOperatorShare,
        rotation: (this.#rotation = (this.#rotation ?? Math.floor(this.#host.random() * 1024)) + 1),
      });
      if (choice.type === 'none') {
        sub.noEndpoint = true;
        if (!sub.everLive) return;
        this.#finish(sub);
        sub.end(noEndpointError(sub.method, 'wrong-chain-any-more'));
        return;
      }
      if (choice.type === 'wait') {
        await sleepWhilePlacing(this.#timers, sub, waitForCandidateMs(this.#endpoints.earliestPauseEnd(now), now, this.#settings.backoff));
        continue;
      }
      if (rebind !== undefined && reserved !== choice.endpointId) {
        const meter = this.#host.meterResubscribe(choice.endpointId, now);
        if (meter.type !== 'later') reserved = choice.endpointId;
        if (meter.type !== 'go') {
          await sleepWhilePlacing(this.#timers, sub, meter.waitMs);
          continue;
        }
      }
      reserved = undefined;
      const state = this.#endpoints.get(choice.endpointId)!;
      const connection = this.#members.connectionFor(state, factory);
      this.#members.attach(sub, connection, state);
      try {
        if ((await unlessClosed(sub, connection.opened())) === CLOSED || sub.state !== 'placing') {
          this.#members.detach(sub);
          continue;
        }
        let bound = false;
        // A node that confirms after the request timed out is told to drop it at once.
        const answer = connection.request(sub.method, sub.params, (id) => (bound = this.#bind(sub, connection, state, id, rebind)), (id) => this.#dropAtNode(connection, sub, id));
        const serverId = await unlessClosed(sub, answer);
        if (serverId === CLOSED) {
          // Closed while the node had not answered: an answer still coming is undone.
          answer.then((id) => !bound && this.#dropAtNode(connection, sub, id), () => undefined);
        } else if (bound) return;
        // Closed meanwhile (or the socket died with the answer): drop the node's subscription too.
        else this.#dropAtNode(connection, sub, serverId);
        this.#members.detach(sub);
      } catch (error) {
        this.#members.detach(sub);
        sub.lastFailedEndpoint = state.endpoint.id;
        if (error instanceof SocketRpcError) {
          const message = this.#host.redact(error.rpcMessage).slice(0, 200);
          sub.lastFailure = `rpc error ${error.rpcCode}`;
          if (!sub.everLive) {
            // The node refused the call itself (bad params, unknown method): another node would too.
            sub.refusal = refusalError(sub.method, state.endpoint.id, error.rpcCode, message);
            return;
          }
          // It was accepted elsewhere before: try another node, backing off if they all refuse.
          sub.refusals++;
          await sleepWhilePlacing(this.#timers, sub, endpointPauseMs(sub.refusals, undefined, this.#settings.backoff, this.#host.random));
        } else {
          sub.lastFailure = connection.dead ? 'socket failed' : 'no answer in time';
        }
      }
    }
  }

  /** Unsubscribes `serverId` at the node (fire and forget: bounded by requestTimeoutMs). */
  #dropAtNode(connection: Connection, sub: ManagedSubscription, serverId: unknown): void {
    if (!connection.dead) void connection.request(sub.profile.unsubscribeMethod, [serverId]).catch(() => undefined);
  }

  /** The node confirmed `sub` with `serverId`: live from this very frame on. False when it was closed meanwhile. */
  #bind(sub: ManagedSubscription, connection: Connection, state: EndpointState, serverId: unknown, rebind: { from: string; reason: RebindReason } | undefined): boolean {
    const nowMs = this.now();
    if (!this.#members.bind(sub, connection, state, serverId, nowMs)) return false;
    if (rebind !== undefined) {
      this.emit({ atMs: nowMs, phase: 'rebound', method: sub.method, subscriptionId: sub.id, endpointId: state.endpoint.id, fromEndpointId: rebind.from, reason: rebind.reason });
      sub.rebound(rebind.from, rebind.reason, nowMs);
    } else sub.started();
    return true;
  }

  /** Marks `sub` closed and releases its place (not its socket: callers decide when that idles). */
  #finish(sub: ManagedSubscription): void {
    if (sub.state === 'closed') return;
    const connection = sub.connection;
    const serverId = sub.serverId;
    this.#members.detach(sub);
    // Keep the node's id for the unsubscribe call that may follow.
    sub.serverId = serverId;
    sub.connection = connection;
    sub.markClosed();
    this.#subscriptions.delete(sub);
    this.#onClosed.get(sub)?.();
    if (sub.everLive) this.emit({ atMs: this.now(), phase: 'closed', method: sub.method, subscriptionId: sub.id, endpointId: sub.endpointId });
  }

  #onDead(connection: Connection, reason: RebindReason, failure: SocketFailure | undefined): void {
    const state = this.#endpoints.socketGone(connection);
    if (state === undefined || this.#closed) return;
    const now = this.now();
    if (reason !== 'left-rotation' && (failure !== undefined || connection.members.size > 0 || reason !== 'closed')) {
      this.#endpoints.pause(state, failure, connection.confirmedAtMs, now, this.#host.clock.wallNow(), this.#settings.backoff, this.#host.random);
    }
    const factory = this.#settings.socketFactory;
    for (const member of [...connection.members]) {
      const sub = member as ManagedSubscription;
      // Subscriptions still being placed see their own request fail and carry on by themselves.
      if (sub.state !== 'live') continue;
      this.#members.detach(sub);
      sub.lost(now);
      sub.lastFailedEndpoint = state.endpoint.id;
      void this.#factory
        ?.then((loaded) => this.#place(sub, (factory ?? loaded)!, { from: state.endpoint.id, reason }))
        // Nobody awaits a rebind: a fault in it must end the iterator, never float as an unhandled rejection.
        .catch((error: unknown) => {
          this.#finish(sub);
          sub.end(error instanceof Error ? error : new Error('rebind failed'));
        });
    }
  }
}
