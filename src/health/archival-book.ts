/**
 * What the pool knows about each endpoint's archive, per class of historical read: declared
 * in config (`archival`), or learned from answers. A pruned-state answer teaches "not
 * archival" for `forgetAfterMs` (a node may be re-synced or its provider may change the
 * backend); a provably historical success teaches "archival" until a pruned answer says
 * otherwise. Evidence beats the declaration: a node declared archival that answers "missing
 * trie node" is not sent that class of read while the lesson lasts.
 */
import type { HistoricalClass } from './historical.js';

export type ArchivalKnowledge = true | false | 'unknown';

/** How long a learned "not archival" lasts, in ms. */
export const FORGET_NOT_ARCHIVAL_MS = 30 * 60_000;

interface Learned {
  value: boolean;
  untilMs: number;
}

export class ArchivalBook {
  readonly #declared: readonly (boolean | undefined)[];
  readonly #learned = new Map<HistoricalClass, (Learned | undefined)[]>();
  readonly #forgetAfterMs: number;

  constructor(declared: readonly (boolean | undefined)[], forgetAfterMs = FORGET_NOT_ARCHIVAL_MS) {
    this.#declared = declared;
    this.#forgetAfterMs = forgetAfterMs;
  }

  /** What is known of endpoint `index` for `readClass` at `nowMs`. */
  knowledge(index: number, readClass: HistoricalClass, nowMs: number): ArchivalKnowledge {
    const learned = this.#learned.get(readClass)?.[index];
    if (learned !== undefined && nowMs < learned.untilMs) return learned.value;
    return this.#declared[index] ?? 'unknown';
  }

  /** The endpoint's archive as one value: learned evidence of any class first, then the declaration. */
  summary(index: number, nowMs: number): ArchivalKnowledge {
    let result: ArchivalKnowledge = 'unknown';
    for (const list of this.#learned.values()) {
      const learned = list[index];
      if (learned === undefined || nowMs >= learned.untilMs) continue;
      if (!learned.value) return false;
      result = true;
    }
    return result === 'unknown' ? (this.#declared[index] ?? 'unknown') : result;
  }

  /** Returns true when this changed what is known. */
  learn(index: number, readClass: HistoricalClass, archival: boolean, nowMs: number): boolean {
    const before = this.knowledge(index, readClass, nowMs);
    let list = this.#learned.get(readClass);
    if (list === undefined) {
      list = [];
      this.#learned.set(readClass, list);
    }
    list[index] = { value: archival, untilMs: archival ? Number.POSITIVE_INFINITY : nowMs + this.#forgetAfterMs };
    return before !== archival;
  }
}
