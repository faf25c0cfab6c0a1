/**
 * Per-endpoint bookkeeping of the subscription manager: its sockets, how many subscriptions it
 * holds, its pause after socket failures, and the frames it sent that the pool could not use.
 */
import type { Random } from '../clock.js';
import type { BackoffSettings } from '../retry/backoff.js';
import { parseRetryAfter } from '../retry/retry-after.js';
import type { Connection } from './connection.js';
import { endpointPauseMs, failuresAfterDeath } from './rebind-backoff.js';
import type { CandidateStatus, SelectionCandidate } from './selection.js';
import type { SocketFailure } from './socket.js';

/** An endpoint that can take subscriptions. `wsUrl` is a secret: it only ever reaches the socket factory. */
export interface WsEndpoint {
  readonly id: string;
  readonly operator: string;
  readonly wsUrl: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** Where an endpoint stands in the pool's rotation now. */
export interface EndpointStanding {
  readonly tier: number;
  readonly band: number;
  readonly status: CandidateStatus;
}

/** Per endpoint, for `snapshot()`. */
export interface SubscriptionEndpointSnapshot {
  readonly endpointId: string;
  /** Sockets open or opening. */
  readonly sockets: number;
  /** Subscriptions live or being placed on it. */
  readonly subscriptions: number;
  /** Remaining pause after socket failures, in ms (0: may take subscriptions). */
  readonly pausedForMs: number;
  /** Socket failures in a row (a socket that stayed up `maxBackoffMs` after a confirmation ends the run). */
  readonly consecutiveFailures: number;
  /** Notifications for a subscription id the pool does not hold, and frames that were not JSON-RPC, since start. */
  readonly unknownNotifications: number;
  readonly garbageFrames: number;
  /** Callers its subscriptions serve (more than `subscriptions` when callers share them; a redundant pair's callers count on both its endpoints). */
  readonly callers: number;
  /** Subscriptions on it that two or more callers share. */
  readonly shared: number;
  /** Subscriptions on it that are one leg of a redundant pair. */
  readonly redundant: number;
}


/** Per endpoint: what the `callers`, `shared` and `redundant` fields of its snapshot say. */
export interface LinkCounts {
  callers: number;
  shared: number;
  redundant: number;
}

const NO_LINKS: LinkCounts = { callers: 0, shared: 0, redundant: 0 };

export interface EndpointState {
  readonly endpoint: WsEndpoint;
  readonly connections: Set<Connection>;
  load: number;
  failures: number;
  pausedUntilMs: number;
  unknownNotifications: number;
  garbageFrames: number;
}

export class EndpointStates {
  readonly #states = new Map<string, EndpointState>();

  constructor(endpoints: readonly WsEndpoint[]) {
    for (const endpoint of endpoints) {
      this.#states.set(endpoint.id, { endpoint, connections: new Set(), load: 0, failures: 0, pausedUntilMs: 0, unknownNotifications: 0, garbageFrames: 0 });
    }
  }

  get size(): number {
    return this.#states.size;
  }

  get(endpointId: string): EndpointState | undefined {
    return this.#states.get(endpointId);
  }

  values(): IterableIterator<EndpointState> {
    return this.#states.values();
  }

  /** The selection's view of every endpoint now. */
  candidates(standing: (endpointId: string, nowMs: number) => EndpointStanding, nowMs: number): SelectionCandidate[] {
    const out: SelectionCandidate[] = [];
    for (const state of this.#states.values()) {
      const { tier, band, status } = standing(state.endpoint.id, nowMs);
      out.push({ endpointId: state.endpoint.id, operator: state.endpoint.operator, tier, band, status, paused: state.pausedUntilMs > nowMs, subscriptions: state.load });
    }
    return out;
  }

  /** When the first paused endpoint may be used again (infinity when none is paused). */
  earliestPauseEnd(nowMs: number): number {
    let earliest = Number.POSITIVE_INFINITY;
    for (const state of this.#states.values()) if (state.pausedUntilMs > nowMs) earliest = Math.min(earliest, state.pausedUntilMs);
    return earliest;
  }

  /**
   * A socket of `state` failed (`confirmedAtMs`: when it first confirmed a subscription):
   * count it and pause the endpoint (jittered backoff, at least a 429's Retry-After).
   */
  pause(state: EndpointState, failure: SocketFailure | undefined, confirmedAtMs: number | undefined, nowMs: number, wallNowMs: number, backoff: BackoffSettings, random: Random): void {
    state.failures = failuresAfterDeath(state.failures, confirmedAtMs, nowMs, backoff);
    const providerDelayMs = failure?.kind === 'rate-limited' ? parseRetryAfter(failure.retryAfter, wallNowMs) : undefined;
    state.pausedUntilMs = nowMs + endpointPauseMs(state.failures, providerDelayMs, backoff, random);
  }

  /** A socket died: it leaves its endpoint, which keeps its counters. Returns the endpoint's state. */
  socketGone(connection: Connection): EndpointState | undefined {
    const state = this.#states.get(connection.endpointId);
    state?.connections.delete(connection);
    this.absorb(connection);
    return state;
  }

  /** A socket is gone: keep its counters on the endpoint. */
  absorb(connection: Connection): void {
    const state = this.#states.get(connection.endpointId);
    if (state === undefined) return;
    state.unknownNotifications += connection.unknownNotifications;
    state.garbageFrames += connection.garbageFrames;
  }

  /** `links`: per endpoint, the callers, shared and redundant subscriptions it serves (see shared-subscriptions.ts). */
  snapshot(nowMs: number, links: ReadonlyMap<string, LinkCounts>): SubscriptionEndpointSnapshot[] {
    return [...this.#states.values()].map((state) => {
      let unknown = state.unknownNotifications;
      let garbage = state.garbageFrames;
      for (const c of state.connections) {
        unknown += c.unknownNotifications;
        garbage += c.garbageFrames;
      }
      return {
        endpointId: state.endpoint.id,
        sockets: state.connections.size,
        subscriptions: state.load,
        pausedForMs: Math.max(0, state.pausedUntilMs - nowMs),
        consecutiveFailures: state.failures,
        unknownNotifications: unknown,
        garbageFrames: garbage,
        ...(links.get(state.endpoint.id) ?? NO_LINKS),
      };
    });
  }
}
