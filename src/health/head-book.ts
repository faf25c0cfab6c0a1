/**
 * Every endpoint's last head and lag verdict, and the reference tip per quantity. Pure state
 * driven by the caller's clock readings. An observation that repeats the endpoint's last raw
 * head (the common case: many answers per slot) only refreshes its time. A fresh verdict
 * ages: once the tip has moved on by more than the allowance since an endpoint's head was
 * judged, the endpoint is `aged` — its head says nothing about now — until a new head of it
 * is judged (the pool probes it: an endpoint serving only head-less reads would otherwise
 * stay fresh however far the chain went on without it). Aged is not lagging: a healthy node
 * that was merely asked nothing with a head keeps its reads meanwhile.
 */
import type { HeadQuantity } from './config.js';
import { headValue, isHeadValue } from './head-of.js';
import { isLaggingNow } from './lag.js';
import { referenceTipIndex, TIP_BOUNDS, type HeadSample } from './reference-tip.js';
import { tipHolder } from './tip-holder.js';

export interface HeadRecord {
  readonly quantity: HeadQuantity;
  readonly value: bigint;
  /** Monotonic time of the observation (the caller's clock). */
  readonly observedAtMs: number;
  /** Behind the reference tip at the observation (0 when at or past it); undefined when no tip was known. */
  readonly lag: bigint | undefined;
}

/** An endpoint started or stopped lagging. */
export interface LagChange {
  readonly index: number;
  readonly lagging: boolean;
  readonly record: HeadRecord;
  readonly tip: bigint;
  readonly allowance: number;
}

interface Entry {
  quantity: HeadQuantity | undefined;
  raw: number | bigint | string | undefined;
  value: bigint;
  number: number;
  observedAtMs: number;
  lag: bigint | undefined;
  lagging: boolean;
  /** The tip value the verdict was made against (a stalled node repeats its head while the tip moves on). */
  judgedAgainst: number;
  /** Fresh, but the tip moved on by more than the allowance since `judgedAgainst`. */
  aged: boolean;
}

interface Tip {
  value: bigint;
  number: number;
  atMs: number;
  /** The endpoint whose head it is. */
  index: number;
}

export interface HeadBookSettings {
  readonly allowance: Readonly<Record<HeadQuantity, number>>;
  /** Heads older than this take no part in the tip (a dead endpoint's old head must not drag it down). */
  readonly staleAfterMs: number;
  /**
   * A lagging endpoint is judged back only against a tip observed at most this long before
   * its own head: a stale tip would understate its lag and readmit it too early.
   */
  readonly maxTipAgeMs: number;
}

const NO_CHANGES: readonly LagChange[] = Object.freeze([]);

export class HeadBook {
  readonly #entries: Entry[];
  readonly #tips = new Map<HeadQuantity, Tip>();
  readonly #settings: HeadBookSettings;
  /** Scratch arrays for the tip computation. */
  readonly #samples: HeadSample[] = [];
  readonly #sampleIndex: number[] = [];
  #laggingCount = 0;
  /** A pool of one: its head needs nobody to vouch for it. */
  readonly #alone: boolean;
  /**
   * Per quantity, a tip above this may have aged a fresh verdict: at most the lowest
   * (tip judged against + allowance) over fresh endpoints, so most tip moves cost one comparison.
   */
  readonly #agedAbove: Record<HeadQuantity, number> = { slot: Number.NEGATIVE_INFINITY, block: Number.NEGATIVE_INFINITY };
  /** An endpoint aged since {@link HeadBook.takeNewlyAged} was last asked. */
  #newlyAged = false;

  constructor(endpointCount: number, settings: HeadBookSettings) {
    this.#settings = settings;
    this.#alone = endpointCount === 1;
    this.#entries = Array.from({ length: endpointCount }, () => ({
      quantity: undefined,
      raw: undefined,
      value: 0n,
      number: 0,
      observedAtMs: 0,
      lag: undefined,
      lagging: false,
      judgedAgainst: Number.NaN,
      aged: false,
    }));
  }

  /**
   * Records a head; returns the verdicts it changed: this endpoint's, and those of lagging
   * endpoints observed just before that could not be judged against a tip this fresh.
   */
  observe(index: number, quantity: HeadQuantity, raw: number | bigint | string, nowMs: number): readonly LagChange[] {
    const entry = this.#entries[index]!;
    if (entry.raw === raw && entry.quantity === quantity && this.#tips.get(quantity)?.number === entry.judgedAgainst) {
      entry.observedAtMs = nowMs;
      if (this.#laggingCount > 0 && this.#tips.get(quantity)?.index === index) return this.#rejudgeLagging(quantity, index, nowMs);
      return NO_CHANGES;
    }
    if (!isHeadValue(raw)) return NO_CHANGES;
    const value = headValue(raw);
    entry.quantity = quantity;
    entry.raw = raw;
    entry.value = value;
    entry.number = Number(value);
    entry.observedAtMs = nowMs;
    const hadTip = this.#tips.has(quantity);
    const tip = this.#updateTip(quantity, nowMs);
    const change = this.#judge(index, entry, tip);
    let changes = change === undefined ? NO_CHANGES : [change];
    // The first tip (two heads vouch for each other): the heads seen before it are judged now.
    if (!hadTip && tip !== undefined) changes = joined(changes, this.#judgeUnjudged(quantity, tip, index));
    if (this.#laggingCount > 0 && tip?.index === index) changes = joined(changes, this.#rejudgeLagging(quantity, index, nowMs));
    if (tip !== undefined && tip.number > this.#agedAbove[quantity]) this.#markAged(quantity, tip);
    return changes;
  }

  /** A node said it is `slotsBehind` behind (Solana getHealth -32005): a head of tip − N when a slot tip is known. */
  observeBehind(index: number, slotsBehind: number, nowMs: number): readonly LagChange[] {
    const tip = this.#tips.get('slot');
    if (tip === undefined || !Number.isSafeInteger(slotsBehind) || slotsBehind < 0) return NO_CHANGES;
    const value = tip.value - BigInt(slotsBehind);
    return this.observe(index, 'slot', value < 0n ? 0n : value, nowMs);
  }

  record(index: number): HeadRecord | undefined {
    const entry = this.#entries[index]!;
    if (entry.quantity === undefined) return undefined;
    return { quantity: entry.quantity, value: entry.value, observedAtMs: entry.observedAtMs, lag: entry.lag };
  }

  isLagging(index: number): boolean {
    return this.#entries[index]!.lagging;
  }

  /** Fresh when last judged, but the tip has since moved on by more than the allowance: its head tells nothing of now. */
  isAged(index: number): boolean {
    return this.#entries[index]!.aged;
  }

  /** True once after an observation aged some endpoint (the pool then has one to probe). */
  takeNewlyAged(): boolean {
    const aged = this.#newlyAged;
    this.#newlyAged = false;
    return aged;
  }

  /** True when any endpoint lags (one comparison). */
  get anyLagging(): boolean {
    return this.#laggingCount > 0;
  }

  /** The lag judged at the endpoint's last observation; Infinity when unknown. */
  lagOf(index: number): number {
    const lag = this.#entries[index]!.lag;
    return lag === undefined ? Number.POSITIVE_INFINITY : Number(lag);
  }

  /** The reference tip of `quantity`: its value, when its endpoint was last observed and which endpoint it is. */
  tip(quantity: HeadQuantity): { readonly value: bigint; readonly atMs: number; readonly index: number } | undefined {
    return this.#tips.get(quantity);
  }

  /** The tip's endpoint was just observed: lagging endpoints observed shortly before may now be judged against it. */
  #rejudgeLagging(quantity: HeadQuantity, tipIndex: number, nowMs: number): readonly LagChange[] {
    const tip = this.#tips.get(quantity)!;
    tip.atMs = nowMs;
    let changes: LagChange[] | undefined;
    for (let i = 0; i < this.#entries.length; i++) {
      const entry = this.#entries[i]!;
      if (i === tipIndex || !entry.lagging || entry.quantity !== quantity || nowMs - entry.observedAtMs > this.#settings.maxTipAgeMs) continue;
      const change = this.#judge(i, entry, tip);
      if (change !== undefined) (changes ??= []).push(change);
    }
    return changes ?? NO_CHANGES;
  }

  #judgeUnjudged(quantity: HeadQuantity, tip: Tip, observed: number): readonly LagChange[] {
    let changes: LagChange[] | undefined;
    for (let i = 0; i < this.#entries.length; i++) {
      const entry = this.#entries[i]!;
      if (i === observed || entry.quantity !== quantity || entry.lag !== undefined) continue;
      const change = this.#judge(i, entry, tip);
      if (change !== undefined) (changes ??= []).push(change);
      // A head seen long before the tip says nothing of where the node is now: not vouched
      // fresh by it, but aged (probed, judged again at its next head).
      else if (!entry.lagging && tip.atMs - entry.observedAtMs > this.#settings.maxTipAgeMs) {
        entry.aged = true;
        this.#newlyAged = true;
      }
    }
    return changes ?? NO_CHANGES;
  }

  /** Marks the fresh endpoints whose verdict the tip has outgrown as aged; recomputes the watermark. */
  #markAged(quantity: HeadQuantity, tip: Tip): void {
    const allowance = this.#settings.allowance[quantity];
    let lowest = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.#entries.length; i++) {
      const entry = this.#entries[i]!;
      if (entry.quantity !== quantity || entry.lagging || entry.aged) continue;
      if (i !== tip.index && tip.number - judgedBase(entry) > allowance) {
        entry.aged = true;
        this.#newlyAged = true;
      } else lowest = Math.min(lowest, judgedBase(entry) + allowance);
    }
    this.#agedAbove[quantity] = lowest;
  }

  #judge(index: number, entry: Entry, tip: Tip | undefined): LagChange | undefined {
    const quantity = entry.quantity!;
    if (tip === undefined) {
      entry.lag = undefined;
      this.#watch(entry);
      return undefined;
    }
    const lag = tip.value > entry.value ? tip.value - entry.value : 0n;
    entry.lag = lag;
    entry.judgedAgainst = tip.number;
    entry.aged = false;
    const allowance = this.#settings.allowance[quantity];
    let lagging = isLaggingNow(entry.lagging, Number(lag), allowance);
    // Back only against a tip seen at about the same time: a stale tip understates the lag.
    if (entry.lagging && !lagging && entry.observedAtMs - tip.atMs > this.#settings.maxTipAgeMs) lagging = true;
    if (!lagging) this.#watch(entry);
    if (lagging === entry.lagging) return undefined;
    entry.lagging = lagging;
    this.#laggingCount += lagging ? 1 : -1;
    return { index, lagging, record: this.record(index)!, tip: tip.value, allowance };
  }

  /** A fresh (or not yet judged) endpoint: a tip past its judged base + allowance ages its verdict. */
  #watch(entry: Entry): void {
    const quantity = entry.quantity!;
    const until = judgedBase(entry) + this.#settings.allowance[quantity];
    if (until < this.#agedAbove[quantity]) this.#agedAbove[quantity] = until;
  }

  #updateTip(quantity: HeadQuantity, nowMs: number): Tip | undefined {
    const samples = this.#samples;
    const sampleIndex = this.#sampleIndex;
    samples.length = 0;
    sampleIndex.length = 0;
    const oldest = nowMs - this.#settings.staleAfterMs;
    for (let i = 0; i < this.#entries.length; i++) {
      const entry = this.#entries[i]!;
      if (entry.quantity !== quantity || entry.observedAtMs < oldest) continue;
      samples.push({ value: entry.number, atMs: entry.observedAtMs });
      sampleIndex.push(i);
    }
    const previous = this.#tips.get(quantity);
    const last = previous === undefined ? undefined : { value: previous.number, atMs: previous.atMs };
    const chosen = referenceTipIndex(samples, last, nowMs, TIP_BOUNDS[quantity], this.#alone);
    if (chosen === -1) return previous;
    const index = tipHolder(this.#entries, sampleIndex, sampleIndex[chosen]!, previous?.index);
    const entry = this.#entries[index]!;
    if (previous !== undefined && previous.index === index && previous.number === entry.number) {
      previous.atMs = entry.observedAtMs;
      return previous;
    }
    const tip: Tip = { value: entry.value, number: entry.number, atMs: entry.observedAtMs, index };
    this.#tips.set(quantity, tip);
    return tip;
  }
}

/**
 * What an endpoint's verdict vouches for: the tip its head was last judged against, or its own
 * head when that is higher (or it never was judged: no tip yet).
 */
function judgedBase(entry: Entry): number {
  return Number.isNaN(entry.judgedAgainst) || entry.number > entry.judgedAgainst ? entry.number : entry.judgedAgainst;
}

function joined(a: readonly LagChange[], b: readonly LagChange[]): readonly LagChange[] {
  return a.length === 0 ? b : b.length === 0 ? a : [...a, ...b];
}
