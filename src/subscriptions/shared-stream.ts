/**
 * One stream shared by its callers: the link of its node subscription (or of a redundant
 * pair's merge) that hands each item to every caller, each after the first its own copy;
 * placement waited for under each caller's own signal and deadline; the node subscription
 * closed when the last caller leaves (see shared-subscriptions.ts for who shares).
 */
import type { QueuedTimer } from '../clock.js';
import { copyOf } from '../coalesce/coalescer.js';
import { CallerSubscription, type CallerSource } from './caller-subscription.js';
import type { ItemSink } from './item-buffer.js';
import { abortedError, timeoutError } from './placement-errors.js';
import { RedundantStream, type StreamOpener } from './redundant-stream.js';
import type { SubscriptionLink } from './subscription.js';
import type { SubscribeOptions, Subscription, SubscriptionEvent, SubscriptionItem } from './types.js';

/** What callers share: one node subscription or a redundant pair. */
interface SharedSource {
  readonly id: number;
  readonly endpointId: string;
  close(): Promise<void>;
}

/** Each caller after the first gets its own copy: callers may mutate what they read. */
const copyItem = (item: SubscriptionItem): SubscriptionItem => (item.kind === 'notification' ? { ...item, value: copyOf(item.value) } : { ...item });

/**
 * One stream and its callers: the link of its node subscription (or of a redundant pair's
 * merge), handing each item to every caller. Kept small: a pool may hold thousands.
 */
export class SharedStream implements ItemSink<SubscriptionItem>, SubscriptionLink, CallerSource {
  readonly method: string;
  readonly redundant = false;
  readonly #opener: StreamOpener;
  readonly #registry: Map<string, SharedStream>;
  readonly #key: string | undefined;
  readonly #callers = new Set<CallerSubscription>();
  /**
   * Aborted when every caller left before the stream opened. Callers leave before that only
   * on their signals, so it exists only when the first caller brought one (it cannot leave
   * without: nobody else could abort then).
   */
  #placing: AbortController | undefined;
  #ready: Promise<SharedSource> | undefined;
  #source: SharedSource | undefined;
  #ended = false;

  constructor(opener: StreamOpener, method: string, registry: Map<string, SharedStream>, key: string | undefined) {
    this.#opener = opener;
    this.method = method;
    this.#registry = registry;
    this.#key = key;
  }

  get sink(): this {
    return this;
  }

  callers(): number {
    return this.#callers.size;
  }

  partnerEndpoint(): undefined {
    return undefined;
  }

  get id(): number {
    return this.#source?.id ?? 0;
  }

  get endpointId(): string {
    return this.#source?.endpointId ?? '';
  }

  now(): number {
    return this.#opener.now();
  }

  emit(event: SubscriptionEvent): void {
    this.#opener.emit(event);
  }

  open(params: readonly unknown[], options: SubscribeOptions, redundancy: 1 | 2): void {
    if (options.signal !== undefined) this.#placing = new AbortController();
    const own = { ...options, signal: this.#placing?.signal };
    const opening: Promise<SharedSource> =
      redundancy === 2 ? RedundantStream.open(this.#opener, this.method, params, own, this) : this.#opener.open(this.method, params, own, this);
    this.#ready = opening.then(
      (source) => {
        this.#source = source;
        // Joiners from now on need no promise: an idle stream keeps none.
        this.#ready = undefined;
        // Every caller left as it opened.
        if (this.#callers.size === 0) void this.leave(undefined);
        return source;
      },
      (error: unknown) => {
        this.#ended = true;
        this.#forget();
        throw error;
      },
    );
  }

  /**
   * Adds a caller; resolves once the stream is open. A caller that `joined` one being placed
   * keeps its own deadline (`timeoutMs`: the placement goes on for the others); the first
   * caller's is the placement's own. Its signal closes it, before or after.
   */
  async join(options: SubscribeOptions, joined: boolean): Promise<Subscription> {
    const caller = new CallerSubscription(this, {
      bufferSize: options.bufferSize ?? this.#opener.settings.bufferSize,
      bufferBytes: options.bufferBytes ?? this.#opener.settings.bufferBytes,
      overflow: options.overflow ?? this.#opener.settings.overflow,
    });
    this.#callers.add(caller);
    const ready = this.#ready;
    const { signal, timeoutMs } = options;
    const deadline = joined && ready !== undefined ? timeoutMs : undefined;
    if (signal === undefined && deadline === undefined) {
      await ready?.catch((error: unknown) => this.#refused(caller, error));
      return caller;
    }
    const timer: QueuedTimer = { dueMs: 0, fire: () => undefined };
    const left = new Promise<never>((_resolve, reject) => {
      const leave = (error: Error) => {
        void caller.close();
        reject(error);
      };
      if (signal !== undefined) {
        const onAbort = () => leave(abortedError(this.method, signal.reason));
        signal.addEventListener('abort', onAbort, { once: true });
        caller.onClose = () => signal.removeEventListener('abort', onAbort);
      }
      if (deadline !== undefined) {
        timer.fire = () => leave(timeoutError(this.method, deadline, undefined, undefined));
        this.#opener.timers.add(timer, deadline);
      }
    });
    left.catch(() => undefined);
    try {
      if (ready !== undefined) await Promise.race([ready, left]);
    } catch (error) {
      this.#refused(caller, error);
    } finally {
      this.#opener.timers.remove(timer);
    }
    return caller;
  }

  /** The stream did not open for `caller` (it failed, or the caller left first): rethrows. */
  #refused(caller: CallerSubscription, error: unknown): never {
    this.#callers.delete(caller);
    caller.finish(false);
    throw error;
  }

  async leave(caller: CallerSubscription | undefined): Promise<void> {
    if (caller !== undefined && !this.#callers.delete(caller)) return;
    if (this.#callers.size > 0) return;
    this.#forget();
    if (this.#source === undefined) this.#placing?.abort();
    else await this.#source.close();
  }

  push(item: SubscriptionItem, bytes = 0): boolean {
    let first = true;
    for (const caller of this.#callers) {
      // A caller whose `error` policy just ended its buffer leaves; the others read on.
      if (!caller.buffer.push(first ? item : copyItem(item), bytes)) void caller.close();
      first = false;
    }
    return true;
  }

  end(drain = false): void {
    this.#finish((caller) => caller.finish(drain));
  }

  fail(error: Error): void {
    this.#finish((caller) => caller.finish(false, error));
  }

  #finish(each: (caller: CallerSubscription) => void): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#forget();
    for (const caller of this.#callers) each(caller);
    this.#callers.clear();
  }

  #forget(): void {
    if (this.#key !== undefined && this.#registry.get(this.#key) === this) this.#registry.delete(this.#key);
  }
}
