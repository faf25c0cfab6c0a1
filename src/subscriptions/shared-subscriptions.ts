/**
 * Identical subscriptions from several callers share one stream (as @solana/kit coalesces
 * them): the key is the method, the params and the options that change what the node is
 * asked or how the stream is watched (`redundancy`, `expectedIntervalMs`, `backfill`); buffers, overflow
 * policies, signals and timeouts stay each caller's own. The stream is one node
 * subscription, or a redundant pair (redundant-stream.ts); it is unsubscribed at the node
 * when its last caller leaves. With `share: false` every caller gets a stream of its own,
 * through the same path.
 */
import { stringifyJson } from '../jsonrpc/exact-json.js';
import type { LinkCounts } from './endpoint-states.js';
import { abortedError } from './placement-errors.js';
import type { StreamOpener } from './redundant-stream.js';
import type { ResolvedSubscriptionSettings } from './settings.js';
import { SharedStream } from './shared-stream.js';
import type { ManagedSubscription } from './subscription.js';
import type { SubscribeOptions, Subscription } from './types.js';

export class SharedSubscriptions {
  readonly #opener: StreamOpener;
  readonly #settings: ResolvedSubscriptionSettings;
  readonly #streams = new Map<string, SharedStream>();

  constructor(opener: StreamOpener) {
    this.#opener = opener;
    this.#settings = opener.settings;
  }

  subscribe<T>(method: string, params: readonly unknown[], options: SubscribeOptions): Promise<Subscription<T>> {
    if (options.signal?.aborted) return Promise.reject(abortedError(method, options.signal.reason));
    const redundancy = options.redundancy ?? this.#settings.redundancy;
    const key = this.#settings.share ? shareKey(method, params, redundancy, options) : undefined;
    let stream = key === undefined ? undefined : this.#streams.get(key);
    if (stream !== undefined) return stream.join(options, true) as Promise<Subscription<T>>;
    stream = new SharedStream(this.#opener, method, this.#streams, key);
    if (key !== undefined) this.#streams.set(key, stream);
    stream.open(params, options, redundancy);
    return stream.join(options, false) as Promise<Subscription<T>>;
  }
}

/** Per endpoint, what `snapshot()` says of callers, sharing and redundancy (`subscriptions`: every node subscription live or being placed). */
export function linkCounts(subscriptions: Iterable<ManagedSubscription>): Map<string, LinkCounts> {
  const counts = new Map<string, LinkCounts>();
  for (const sub of subscriptions) {
    if (sub.connection === undefined) continue;
    let at = counts.get(sub.endpointId);
    if (at === undefined) counts.set(sub.endpointId, (at = { callers: 0, shared: 0, redundant: 0 }));
    const callers = sub.link?.callers() ?? 1;
    at.callers += callers;
    if (callers > 1) at.shared++;
    if (sub.link?.redundant === true) at.redundant++;
  }
  return counts;
}

/** Undefined when the params cannot be keyed (a cycle, a function): that caller does not share. */
function shareKey(method: string, params: readonly unknown[], redundancy: number, options: SubscribeOptions): string | undefined {
  try {
    // The options that change what the node subscription delivers: its redundancy, its silence, its backfill.
    return `${method}\n${redundancy}\n${options.expectedIntervalMs ?? ''}\n${stringifyJson(options.backfill ?? null)}\n${stringifyJson(params)}`;
  } catch {
    return undefined;
  }
}
