/**
 * The read cache's state (docs/reads.md "Read cache"): the byte-bounded store, each endpoint's
 * finalized head (`cache-finality.ts`), the block hashes seen by
 * number (a different hash at a number is a reorg), and the counters. The stage
 * (`pipeline/cache.ts`) looks up and hands answers here; what is kept is decided by the pure
 * rules in `cache/`.
 */
import type { PoolEvents } from '../api/events.js';
import { blockIdentityOf, judgeAnswer } from '../cache/answer-class.js';
import { CacheFinality } from './cache-finality.js';
import { ByteLru } from '../cache/byte-lru.js';
import { CacheTallies, type KeptClass } from '../cache/cache-tally.js';
import type { ResolvedCacheSettings } from '../cache/cache-settings.js';
import type { RequestRule } from '../cache/read-rules.js';
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

export type CacheCounter = 'hits' | 'misses' | 'stores' | 'evictions' | 'reorgEvictions' | 'verifyMismatches' | 'sharedHits';
export type CacheCounters = Record<CacheCounter, number>;
/** A finalized answer's text as kept (a promise while a second operator is asked), or undefined when it was not kept as one. */
export type KeptFinal = string | undefined | Promise<string | undefined>;

/** Block hashes remembered (the unfinalized window is far shorter). */
const MAX_HASHES = 4_096;
/** Most blocks asked below a new tip to link it to a known block (deeper: the TTL bounds what is left). */
const MAX_WALK = 64;

export class ReadCache {
  readonly settings: ResolvedCacheSettings;
  readonly counters: CacheCounters = { hits: 0, misses: 0, stores: 0, evictions: 0, reorgEvictions: 0, verifyMismatches: 0, sharedHits: 0 };
  /** Stores per class (a bounded label set). */
  readonly storedByClass: Record<KeptClass, number> = { finalized: 0, unfinalized: 0, realtime: 0 };
  readonly #tallies = new CacheTallies();
  readonly #lru: ByteLru;
  readonly #clock: Clock;
  readonly #events: PoolEvents;
  readonly #host: ReadCacheHost;
  readonly #finality: CacheFinality;
  readonly #hashes = new Map<number, string>();
  /** Blocks asked below a tip whose parent was unknown: until they answer, no unfinalized entry is served. */
  #checking = 0;

  readonly #context: ReadCacheContext;

  constructor(settings: ResolvedCacheSettings, context: ReadCacheContext, clock: Clock, events: PoolEvents, host: ReadCacheHost) {
    this.settings = settings;
    this.#context = context;
    this.#lru = new ByteLru(settings);
    this.#clock = clock;
    this.#events = events;
    this.#host = host;
    this.#finality = new CacheFinality(clock, context.probeFinality ? (endpointId) => host.askBlock(endpointId, 'finalized') : undefined);
  }

  get bytes(): number {
    return this.#lru.bytes;
  }

  get size(): number {
    return this.#lru.size;
  }

  snapshot(): CacheSnapshot {
    const { hits, misses, evictions, reorgEvictions, verifyMismatches, sharedHits } = this.counters;
    const stored = { ...this.storedByClass };
    return { entries: this.#lru.size, bytes: this.#lru.bytes, hits, misses, stored, evictions, reorgEvictions, verifyMismatches, sharedHits, methods: this.#tallies.snapshot() };
  }

  /** The kept answer's text under `key`, if live. */
  lookup(key: string, method: string, rule: RequestRule): string | undefined {
    const entry = this.#lru.get(key, this.#clock.now());
    // A new tip not yet linked to the blocks the entries depend on: one of them may be gone.
    if (entry === undefined || (this.#checking > 0 && entry.readClass === 'unfinalized')) {
      this.counters.misses++;
      this.#tallies.of(method, this.#askedAs(rule)).misses++;
      return undefined;
    }
    this.counters.hits++;
    entry.tally.hits++;
    return entry.text;
  }

  /**
   * How a fleet's store may serve this read. `claim`: its answer can be kept for good now —
   * content by hash, answers judged by their block, by-number reads at or below a finalized
   * head some endpoint reported. `look`: a by-number read while no finality is known yet
   * (another process may have proven it). Undefined: above every finalized head known, it
   * cannot be final: no store round trip.
   */
  shareOf(rule: RequestRule): 'claim' | 'look' | undefined {
    if (rule.rule === 'immutable' || rule.rule === 'answer-block') return 'claim';
    if (rule.rule !== 'at-block') return undefined;
    const ceiling = this.#finality.ceiling();
    return rule.number <= ceiling ? 'claim' : ceiling === -1 ? 'look' : undefined;
  }

  /**
   * A final answer another process of the fleet kept (it proved it as this cache would): kept
   * here too, and the caller's copy returned; undefined when the text is not one (too large,
   * not JSON, empty).
   */
  adopt(key: string, method: string, text: string): { readonly value: unknown } | undefined {
    const bytes = text.length + key.length;
    if (bytes > this.settings.maxEntryBytes) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (value === null || value === undefined) return undefined;
    // Local callers sharing one look at the store adopt the same text: kept once.
    if (!this.#lru.has(key)) this.#keep(key, method, text, bytes, 'finalized', undefined, Number.POSITIVE_INFINITY);
    this.counters.sharedHits++;
    return { value };
  }

  #askedAs(rule: RequestRule): KeptClass {
    return rule.rule === 'realtime' || rule.rule === 'finality' ? 'realtime' : rule.rule === 'unfinalized' || this.shareOf(rule) !== 'claim' ? 'unfinalized' : 'finalized';
  }

  #keep(key: string, method: string, text: string, bytes: number, readClass: KeptClass, number: number | undefined, ttlMs: number): void {
    const tally = this.#tallies.of(method, readClass);
    this.counters.evictions += this.#lru.set(key, { text, bytes, readClass, number, expiresAtMs: this.#clock.now() + ttlMs, tally });
    this.counters.stores++;
    this.storedByClass[readClass]++;
    tally.stored++;
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
      case 'finality':
        // Always watched: the answer proves by-number answers final.
        return true;
      case 'immutable':
        // The chain id is a fact of one endpoint until the chain guard checked it on all of them.
        return this.#context.chainVerified || (method !== 'eth_chainId' && method !== 'net_version');
      default:
        return true;
    }
  }

  /** Whether every finalized answer kept was checked by a second operator. */
  get verified(): boolean {
    return this.settings.verify === 'two-operators';
  }

  /**
   * Every answer of a read the cache wants, with the endpoint that gave it (undefined: shared
   * or batched, not kept); `agreed`: a consensus answer, kept as checked. Returns the text when
   * it was kept as finalized (what a fleet may share) — later, with `verify: 'two-operators'`,
   * once the other operator agreed.
   */
  onAnswer(key: string, method: string, params: readonly unknown[], rule: RequestRule, result: unknown, answeredBy: string | undefined, agreed = false): KeptFinal {
    if (answeredBy === undefined) return undefined;
    if (method === 'eth_getBlockByNumber') this.#learnBlock(params, result, answeredBy);
    const judged = judgeAnswer(rule, result, this.#finality.headOf(answeredBy));
    if (judged.class === 'never') return undefined;
    // Not yet proven final: ask the endpoint where its finality stands (the next answer may be kept).
    if (judged.class === 'unfinalized' && judged.number !== undefined) this.#finality.unproven(answeredBy, judged.number);
    const ttlMs = judged.class === 'finalized' ? Number.POSITIVE_INFINITY : judged.class === 'unfinalized' ? this.settings.unfinalizedTtlMs : this.settings.realtimeTtlMs;
    if (!(ttlMs > 0)) return undefined;
    const text = JSON.stringify(result);
    const bytes = text.length + key.length;
    if (bytes > this.settings.maxEntryBytes) return undefined;
    const readClass = judged.class;
    const store = (): string | undefined => {
      this.#keep(key, method, text, bytes, readClass, judged.number, ttlMs);
      return readClass === 'finalized' ? text : undefined;
    };
    if (readClass !== 'finalized' || this.settings.verify === 'none' || agreed) return store();
    return this.#host.askOtherOperator(answeredBy, method, params)?.then(
      (other) => {
        if (JSON.stringify(other) === text) return store();
        this.counters.verifyMismatches++;
        return undefined;
      },
      () => undefined,
    );
  }

  /** A block by number or tag: a `finalized` answer is that endpoint's finality; any block's hash is checked for a reorg. */
  #learnBlock(params: readonly unknown[], result: unknown, answeredBy: string): void {
    if (params[0] === 'finalized') this.#finality.learn(answeredBy, result);
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
    if (knownParent !== undefined || forkAt !== undefined || walked >= MAX_WALK || below <= this.#finality.floor() || !this.#lru.hasReorgable) return;
    this.#checking++;
    this.#host.askBlock(answeredBy, `0x${below.toString(16)}`).then(
      (block) => {
        this.#checkChain(block, answeredBy, walked + 1);
        this.#checking--;
      },
      () => this.#checking--,
    );
  }

  /**
   * Another hash at `forkAt`: the blocks from there up were replaced — and, as one block
   * cannot tell how deep the fork goes, so may every block above the lowest finalized head
   * any endpoint reported. Every unfinalized entry from there up goes at once.
   */
  #reorg(forkAt: number): void {
    const from = Math.min(forkAt, this.#finality.floor() + 1);
    for (const number of [...this.#hashes.keys()]) if (number >= from) this.#hashes.delete(number);
    const dropped = this.#lru.dropFrom(from);
    this.counters.reorgEvictions += dropped;
    this.#events.emit('cache', { atMs: this.#clock.now(), type: 'reorg-eviction', forkAt, fromBlock: from, dropped });
  }
}
