/**
 * The read cache's state (docs/reads.md "Read cache"): the byte-bounded store, each endpoint's
 * finalized head as it said when asked with the `finalized` tag, the block hashes seen by
 * number (a different hash at a number is a reorg), and the counters. The stage
 * (`pipeline/cache.ts`) looks up and hands answers here; what is kept is decided by the pure
 * rules in `cache/`.
 */
import type { PoolEvents } from '../api/events.js';
import { blockIdentityOf, judgeAnswer } from '../cache/answer-class.js';
import { ByteLru } from '../cache/byte-lru.js';
import type { ResolvedCacheSettings } from '../cache/cache-settings.js';
import type { ReadClass, RequestRule } from '../cache/read-rules.js';
import type { Clock } from '../clock.js';
import type { CacheSnapshot } from '../cache/cache-snapshot.js';

/** What the cache asks of the pool: requests pinned to one endpoint (they bypass the cache). */
export interface ReadCacheHost {
  /** `eth_getBlockByNumber([ref, false])` on that endpoint (`finalized`, or a number while checking the chain below a new tip). */
  askBlock(endpointId: string, ref: string): Promise<unknown>;
  /** The same read on an endpoint of another operator; undefined when there is none. */
  askOtherOperator(endpointId: string, method: string, params: readonly unknown[]): Promise<unknown> | undefined;
}

/** What the pool's other options tell the cache. */
export interface ReadCacheContext {
  /**
   * `chain: 'evm'`: once a by-number read repeats unproven, the cache asks the endpoint that
   * answered for its `finalized` block (at most once per 12 s) to prove the next answer final. Otherwise it learns finality only from the
   * callers' own `finalized` reads: no request of its own.
   */
  readonly probeFinality: boolean;
  /** `expectedChain.chainId` is checked on every endpoint: `eth_chainId` is then the same everywhere and kept. */
  readonly chainVerified: boolean;
}

export type CacheCounter = 'hits' | 'misses' | 'stores' | 'evictions' | 'reorgEvictions' | 'verifyMismatches';
export type CacheCounters = Record<CacheCounter, number>;

/** At most one finalized-head question per endpoint this often, in ms: finality moves per epoch, not per call. */
export const FINALITY_REFRESH_MS = 12_000;
/** Block hashes remembered (the unfinalized window is far shorter). */
const MAX_HASHES = 4_096;
/** Most blocks asked below a new tip to link it to a known block (deeper: the TTL bounds what is left). */
const MAX_WALK = 64;
const MAX_UNPROVEN = 1_024;

export class ReadCache {
  readonly settings: ResolvedCacheSettings;
  readonly counters: CacheCounters = { hits: 0, misses: 0, stores: 0, evictions: 0, reorgEvictions: 0, verifyMismatches: 0 };
  /** Stores per class (a bounded label set). */
  readonly storedByClass: Record<Exclude<ReadClass, 'never'>, number> = { finalized: 0, unfinalized: 0, realtime: 0 };
  readonly #lru: ByteLru;
  readonly #clock: Clock;
  readonly #events: PoolEvents;
  readonly #host: ReadCacheHost;
  readonly #finalized = new Map<string, number>();
  readonly #askedAtMs = new Map<string, number>();
  readonly #hashes = new Map<number, string>();
  /** Blocks asked below a tip whose parent was unknown: until they answer, no unfinalized entry is served. */
  #checking = 0;
  /** Unproven by-number reads seen once (bounded, oldest out). */
  readonly #unproven = new Set<string>();

  readonly #context: ReadCacheContext;

  constructor(settings: ResolvedCacheSettings, context: ReadCacheContext, clock: Clock, events: PoolEvents, host: ReadCacheHost) {
    this.settings = settings;
    this.#context = context;
    this.#lru = new ByteLru(settings);
    this.#clock = clock;
    this.#events = events;
    this.#host = host;
  }

  get bytes(): number {
    return this.#lru.bytes;
  }

  get size(): number {
    return this.#lru.size;
  }

  snapshot(): CacheSnapshot {
    const { hits, misses, evictions, reorgEvictions, verifyMismatches } = this.counters;
    return { entries: this.#lru.size, bytes: this.#lru.bytes, hits, misses, stored: { ...this.storedByClass }, evictions, reorgEvictions, verifyMismatches };
  }

  /** The kept answer's text under `key`, if live. */
  lookup(key: string): string | undefined {
    const entry = this.#lru.get(key, this.#clock.now());
    // A new tip not yet linked to the blocks the entries depend on: one of them may be gone.
    if (entry === undefined || (this.#checking > 0 && entry.readClass === 'unfinalized')) {
      this.counters.misses++;
      return undefined;
    }
    this.counters.hits++;
    return entry.text;
  }

  /** Whether a request of this rule can be kept with these settings (else the stage passes it on untouched). */
  wants(rule: RequestRule, method: string): boolean {
    switch (rule.rule) {
      case 'never':
        return false;
      case 'realtime':
        // With unfinalized entries kept, the tip's blocks are watched for reorgs even when not kept.
        return this.settings.realtimeTtlMs > 0 || (this.settings.unfinalizedTtlMs > 0 && method === 'eth_getBlockByNumber');
      case 'unfinalized':
        return this.settings.unfinalizedTtlMs > 0;
      case 'immutable':
        // The chain id is a fact of one endpoint until the chain guard checked it on all of them.
        return this.#context.chainVerified || (method !== 'eth_chainId' && method !== 'net_version');
      default:
        return true;
    }
  }

  /** Every answer of a read the cache wants, with the endpoint that gave it (undefined: shared or batched, not kept). */
  onAnswer(key: string, method: string, params: readonly unknown[], rule: RequestRule, result: unknown, answeredBy: string | undefined): void {
    if (answeredBy === undefined) return;
    if (method === 'eth_getBlockByNumber') this.#learnBlock(params, result, answeredBy);
    const finalizedHead = this.#finalized.get(answeredBy);
    const judged = judgeAnswer(rule, result, finalizedHead);
    if (judged.class === 'never') return;
    // Not yet proven final: ask the endpoint where its finality stands (the next answer may be kept).
    if (judged.class === 'unfinalized' && judged.number !== undefined && this.#repeated(key)) this.#refreshFinality(answeredBy, judged.number);
    const ttlMs = judged.class === 'finalized' ? Number.POSITIVE_INFINITY : judged.class === 'unfinalized' ? this.settings.unfinalizedTtlMs : this.settings.realtimeTtlMs;
    if (!(ttlMs > 0)) return;
    const text = JSON.stringify(result);
    const bytes = text.length + key.length;
    if (bytes > this.settings.maxEntryBytes) return;
    const store = () => {
      this.counters.evictions += this.#lru.set(key, { text, bytes, readClass: judged.class, number: judged.number, expiresAtMs: this.#clock.now() + ttlMs });
      this.counters.stores++;
      this.storedByClass[judged.class as Exclude<ReadClass, 'never'>]++;
    };
    if (judged.class !== 'finalized' || this.settings.verify === 'none') return store();
    const second = this.#host.askOtherOperator(answeredBy, method, params);
    second?.then(
      (other) => {
        if (JSON.stringify(other) === text) store();
        else this.counters.verifyMismatches++;
      },
      () => undefined,
    );
  }

  /**
   * Whether this unproven read was made before: only a read that repeats is worth proving,
   * so a pool whose reads never repeat sends nothing of its own.
   */
  #repeated(key: string): boolean {
    if (this.#unproven.has(key)) return true;
    this.#unproven.add(key);
    if (this.#unproven.size > MAX_UNPROVEN) this.#unproven.delete(this.#unproven.keys().next().value!);
    return false;
  }

  #refreshFinality(endpointId: string, number: number): void {
    if (!this.#context.probeFinality || (this.#finalized.get(endpointId) ?? -1) >= number) return;
    const now = this.#clock.now();
    const askedAt = this.#askedAtMs.get(endpointId);
    if (askedAt !== undefined && now - askedAt < FINALITY_REFRESH_MS) return;
    this.#askedAtMs.set(endpointId, now);
    this.#host.askBlock(endpointId, 'finalized').then(
      (block) => this.#learnFinalized(endpointId, block),
      () => undefined,
    );
  }

  #learnFinalized(endpointId: string, block: unknown): void {
    const identity = blockIdentityOf(block);
    if (identity === undefined) return;
    // Finality never goes back: an older answer arriving late changes nothing.
    if (identity.number > (this.#finalized.get(endpointId) ?? -1)) this.#finalized.set(endpointId, identity.number);
  }

  /** A block by number or tag: a `finalized` answer is that endpoint's finality; any block's hash is checked for a reorg. */
  #learnBlock(params: readonly unknown[], result: unknown, answeredBy: string): void {
    if (params[0] === 'finalized') this.#learnFinalized(answeredBy, result);
    if (this.settings.unfinalizedTtlMs > 0) this.#checkChain(result, answeredBy, 0);
  }

  /**
   * Links a block to the hashes seen before: a different hash at its number, or a parent
   * that is not the block seen at the number below, is a reorg. A block whose parent was
   * never seen (the tip moved on past a reorg) is linked by asking for the blocks below it,
   * down to a known one or the finalized head; meanwhile no unfinalized entry is served.
   */
  #checkChain(result: unknown, answeredBy: string, walked: number): void {
    const identity = blockIdentityOf(result);
    if (identity === undefined) return;
    const parentHash = (result as { parentHash?: unknown }).parentHash;
    const known = this.#hashes.get(identity.number);
    const knownParent = this.#hashes.get(identity.number - 1);
    let forkAt: number | undefined;
    if (typeof parentHash === 'string' && knownParent !== undefined && knownParent !== parentHash) forkAt = identity.number - 1;
    else if (known !== undefined && known !== identity.hash) forkAt = identity.number;
    if (forkAt !== undefined) this.#reorg(forkAt);
    this.#hashes.set(identity.number, identity.hash);
    if (typeof parentHash === 'string') this.#hashes.set(identity.number - 1, parentHash);
    if (this.#hashes.size > MAX_HASHES) this.#hashes.delete(this.#hashes.keys().next().value!);
    const below = identity.number - 1;
    if (knownParent !== undefined || forkAt !== undefined || walked >= MAX_WALK || below <= this.#finalizedFloor() || !this.#lru.hasReorgable) return;
    this.#checking++;
    this.#host.askBlock(answeredBy, `0x${below.toString(16)}`).then(
      (block) => {
        this.#checkChain(block, answeredBy, walked + 1);
        this.#checking--;
      },
      () => this.#checking--,
    );
  }

  /** The lowest finalized head any endpoint reported (-1 when none did): no reorg reaches at or below it. */
  #finalizedFloor(): number {
    let floor = Number.POSITIVE_INFINITY;
    for (const head of this.#finalized.values()) floor = Math.min(floor, head);
    return floor === Number.POSITIVE_INFINITY ? -1 : floor;
  }

  /**
   * Another hash at `forkAt`: the blocks from there up were replaced — and, as one block
   * cannot tell how deep the fork goes, so may every block above the lowest finalized head
   * any endpoint reported. Every unfinalized entry from there up goes at once.
   */
  #reorg(forkAt: number): void {
    const from = Math.min(forkAt, this.#finalizedFloor() + 1);
    for (const number of [...this.#hashes.keys()]) if (number >= from) this.#hashes.delete(number);
    const dropped = this.#lru.dropFrom(from);
    this.counters.reorgEvictions += dropped;
    this.#events.emit('cache', { atMs: this.#clock.now(), type: 'reorg-eviction', forkAt, fromBlock: from, dropped });
  }
}
