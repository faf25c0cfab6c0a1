/**
 * Every endpoint's last head and lag verdict, and the reference tip per quantity. Pure state
 * driven by the caller's clock readings. An observation that repeats the endpoint's last raw
 * head (the common case: many answers per slot) only refreshes its time.
 */
import type { HeadQuantity } from './config.js';
import { headValue } from './head-of.js';
import { isLaggingNow } from './lag.js';
import { referenceTipIndex, TIP_BOUNDS, type HeadSample } from './reference-tip.js';

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
}

export class HeadBook {
  readonly #entries: Entry[];
  readonly #tips = new Map<HeadQuantity, Tip>();
  readonly #settings: HeadBookSettings;
  /** Scratch arrays for the tip computation. */
  readonly #samples: HeadSample[] = [];
  readonly #sampleIndex: number[] = [];
  #laggingCount = 0;

  constructor(endpointCount: number, settings: HeadBookSettings) {
    this.#settings = settings;
    this.#entries = Array.from({ length: endpointCount }, () => ({
      quantity: undefined,
      raw: undefined,
      value: 0n,
      number: 0,
      observedAtMs: 0,
      lag: undefined,
      lagging: false,
      judgedAgainst: Number.NaN,
    }));
  }

  /** Records a head; returns the change of verdict it caused, if any. */
  observe(index: number, quantity: HeadQuantity, raw: number | bigint | string, nowMs: number): LagChange | undefined {
    const entry = this.#entries[index]!;
    if (entry.raw === raw && entry.quantity === quantity && this.#tips.get(quantity)?.number === entry.judgedAgainst) {
      entry.observedAtMs = nowMs;
      return undefined;
    }
    let value: bigint;
    try {
      value = headValue(raw);
    } catch {
      return undefined;
    }
    entry.quantity = quantity;
    entry.raw = raw;
    entry.value = value;
    entry.number = Number(value);
    entry.observedAtMs = nowMs;
    return this.#judge(index, entry, nowMs);
  }

  /** A node said it is `slotsBehind` behind (Solana getHealth -32005): a head of tip − N when a slot tip is known. */
  observeBehind(index: number, slotsBehind: number, nowMs: number): LagChange | undefined {
    const tip = this.#tips.get('slot');
    if (tip === undefined || !Number.isSafeInteger(slotsBehind) || slotsBehind < 0) return undefined;
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

  /** True when any endpoint lags (one comparison). */
  get anyLagging(): boolean {
    return this.#laggingCount > 0;
  }

  /** The lag judged at the endpoint's last observation; Infinity when unknown. */
  lagOf(index: number): number {
    const lag = this.#entries[index]!.lag;
    return lag === undefined ? Number.POSITIVE_INFINITY : Number(lag);
  }

  /** The reference tip of `quantity`: its value, when it was observed and which endpoint holds it. */
  tip(quantity: HeadQuantity): { readonly value: bigint; readonly atMs: number; readonly index: number } | undefined {
    return this.#tips.get(quantity);
  }

  #judge(index: number, entry: Entry, nowMs: number): LagChange | undefined {
    const quantity = entry.quantity!;
    const tip = this.#updateTip(quantity, nowMs);
    if (tip === undefined) {
      entry.lag = undefined;
      return undefined;
    }
    const lag = tip.value > entry.value ? tip.value - entry.value : 0n;
    entry.lag = lag;
    entry.judgedAgainst = tip.number;
    const allowance = this.#settings.allowance[quantity];
    const lagging = isLaggingNow(entry.lagging, Number(lag), allowance);
    if (lagging === entry.lagging) return undefined;
    entry.lagging = lagging;
    this.#laggingCount += lagging ? 1 : -1;
    return { index, lagging, record: this.record(index)!, tip: tip.value, allowance };
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
    const chosen = referenceTipIndex(samples, previous === undefined ? undefined : { value: previous.number, atMs: previous.atMs }, nowMs, TIP_BOUNDS[quantity]);
    if (chosen === -1) return previous;
    const index = sampleIndex[chosen]!;
    const entry = this.#entries[index]!;
    const tip: Tip = { value: entry.value, number: entry.number, atMs: entry.observedAtMs, index };
    this.#tips.set(quantity, tip);
    return tip;
  }
}
