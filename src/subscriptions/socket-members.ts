/**
 * Which socket each subscription sits on, and the per-endpoint load that placement counts:
 * sockets shared per endpoint up to `maxSubscriptionsPerSocket`, a place taken and given
 * back exactly once per attempt (a count that went negative once let the operator cap be
 * passed), and a socket nobody uses any more closed after `idleSocketMs`.
 */
import { Connection, serverKey, type ConnectionHost } from './connection.js';
import type { EndpointState, EndpointStates } from './endpoint-states.js';
import type { ResolvedSubscriptionSettings } from './settings.js';
import type { SocketFactory } from './socket.js';
import type { ManagedSubscription } from './subscription.js';

export class SocketMembers {
  readonly #endpoints: EndpointStates;
  readonly #settings: ResolvedSubscriptionSettings;
  readonly #host: ConnectionHost;

  constructor(endpoints: EndpointStates, settings: ResolvedSubscriptionSettings, host: ConnectionHost) {
    this.#endpoints = endpoints;
    this.#settings = settings;
    this.#host = host;
  }

  connectionFor(state: EndpointState, factory: SocketFactory): Connection {
    for (const connection of state.connections) {
      if (!connection.dead && connection.members.size < this.#settings.maxSubscriptionsPerSocket) return connection;
    }
    const connection = new Connection(state.endpoint.id, state.endpoint.wsUrl, state.endpoint.headers, factory, this.#host);
    if (!connection.dead) state.connections.add(connection);
    return connection;
  }

  /** The node confirmed `sub` on `connection` with `serverId`; false when it was closed or moved meanwhile. */
  bind(sub: ManagedSubscription, connection: Connection, state: EndpointState, serverId: unknown, nowMs: number): boolean {
    if (sub.state !== 'placing' || sub.connection !== connection || connection.dead) return false;
    sub.serverId = serverId;
    sub.bound(state.endpoint.id, nowMs);
    connection.byServerId.set(serverKey(serverId), sub);
    connection.confirmedAtMs ??= nowMs;
    connection.watch(sub);
    sub.everLive = true;
    return true;
  }

  attach(sub: ManagedSubscription, connection: Connection, state: EndpointState): void {
    connection.members.add(sub);
    connection.inUse();
    sub.connection = connection;
    sub.endpointId = state.endpoint.id;
    state.load++;
  }

  /** Releases `sub`'s place on its socket; idempotent (a closed one keeps `connection` for its unsubscribe call, unattached). */
  detach(sub: ManagedSubscription): void {
    const connection = sub.connection;
    if (connection === undefined) return;
    const attached = connection.members.delete(sub);
    if (sub.serverId !== undefined && connection.byServerId.get(serverKey(sub.serverId)) === sub) connection.byServerId.delete(serverKey(sub.serverId));
    sub.serverId = undefined;
    sub.connection = undefined;
    if (!attached) return;
    const state = this.#endpoints.get(connection.endpointId);
    if (state !== undefined) state.load--;
    // A socket nobody uses any more closes after idleSocketMs, failed subscribes included: it must not keep the process alive.
    this.maybeIdle(connection);
  }

  maybeIdle(connection: Connection): void {
    if (connection.dead || connection.members.size > 0) return;
    connection.idleAfter(this.#settings.idleSocketMs, () => {
      this.#endpoints.get(connection.endpointId)?.connections.delete(connection);
      this.#endpoints.absorb(connection);
      connection.dispose();
    });
  }

  /** Closes every socket without reporting deaths (the pool is closing). */
  disposeAll(): void {
    for (const state of this.#endpoints.values()) {
      for (const connection of state.connections) connection.dispose();
      state.connections.clear();
    }
  }
}
