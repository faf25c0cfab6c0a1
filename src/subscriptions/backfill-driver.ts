/**
 * The caller's side of a backfill: after a rebind, live notifications are held while the
 * fill runs, the fill is delivered, then what was held (through the stream's dedup, so a
 * live copy of a filled notification is dropped). A rebind during a fill runs another one
 * after it. Holding is bounded: a fill slower than the stream gives up (live delivery goes
 * on, the stream's own gap detection reports what is missing).
 */
import type { BackfillContext, BackfillFill, BackfillSetup, BackfillStep } from './backfill-types.js';
import type { GapItem, GapReason } from './types.js';

/** What the driver needs from its subscription. */
export interface BackfillTarget {
  readonly closed: boolean;
  now(): number;
  /** Delivers one filled step (a notification through the stream's order and dedup); false once the subscription ended. */
  deliverStep(step: BackfillStep, atMs: number): boolean;
  /** Delivers a live notification that was held (the live path, with dedup and gap detection). */
  deliverLive(value: unknown, atMs: number, frameBytes: number): void;
  /** Ordered streams: delivery goes on after number `n` with block hash `key`. */
  resumeAfter(n: bigint, key: string): void;
  /** Ordered streams: the next gap found is one a fill did not fill, for `reason`. */
  unfilled(reason: GapReason): void;
}

export interface BackfillParts extends BackfillSetup {
  /** Live notifications held at most while a fill runs (the subscription's buffer size). */
  readonly holdLimit: number;
}

interface Held {
  readonly value: unknown;
  readonly atMs: number;
  readonly bytes: number;
}

export class BackfillDriver {
  readonly #parts: BackfillParts;
  readonly #target: BackfillTarget;
  #held: Held[] | undefined;
  #again = false;
  /** Bumped when a fill is given up: its answer, when it comes, is dropped. */
  #generation = 0;
  /** Aborts the fill's calls when the subscription closes (made on the first fill). */
  #abort: AbortController | undefined;

  constructor(parts: BackfillParts, target: BackfillTarget) {
    this.#parts = parts;
    this.#target = target;
  }

  /** Whether live notifications are being held (a fill runs). */
  get holding(): boolean {
    return this.#held !== undefined;
  }

  hold(value: unknown, atMs: number, bytes: number): void {
    const held = this.#held!;
    held.push({ value, atMs, bytes });
    if (held.length > this.#parts.holdLimit) {
      this.#generation++;
      this.#target.unfilled('failed');
      this.#release();
    }
  }

  /** Fields a `gap` item of this stream carries. */
  gapFields(from: bigint, to: bigint): Pick<GapItem, 'blocks'> | undefined {
    return this.#parts.strategy.gapFields?.(from, to);
  }

  /** Live for the first time. */
  started(): void {
    const started = this.#parts.strategy.started;
    if (started !== undefined) started(this.#context());
  }

  /** Live again after a rebind: fill what was missed. */
  rebound(): void {
    if (this.#parts.strategy.fill === undefined) return;
    if (this.#held !== undefined) {
      this.#again = true;
      return;
    }
    this.#held = [];
    void this.#run(this.#generation);
  }

  close(): void {
    this.#held = undefined;
    this.#generation++;
    this.#abort?.abort();
  }

  async #run(generation: number): Promise<void> {
    do {
      this.#again = false;
      const held = this.#held!.map((h) => h.value);
      // A fill that failed outright delivers nothing: live delivery resumes, its gap detection reports what is missing.
      const fill = await this.#parts.strategy.fill!(held, this.#context()).catch((): BackfillFill => ({ steps: [], unfilled: 'failed' }));
      if (generation !== this.#generation || this.#target.closed) return;
      if (!this.#deliver(fill)) return;
    } while (this.#again);
    this.#release();
  }

  #deliver(fill: BackfillFill): boolean {
    if (fill.resumeAfter !== undefined) this.#target.resumeAfter(fill.resumeAfter.n, fill.resumeAfter.key);
    if (fill.unfilled !== undefined) this.#target.unfilled(fill.unfilled);
    const atMs = this.#target.now();
    for (const step of fill.steps) if (!this.#target.deliverStep(step, atMs)) return false;
    return true;
  }

  #release(): void {
    const held = this.#held ?? [];
    this.#held = undefined;
    for (const { value, atMs, bytes } of held) this.#target.deliverLive(value, atMs, bytes);
  }

  #context(): BackfillContext {
    const { bounds, request } = this.#parts;
    const target = this.#target;
    const deadline = target.now() + bounds.maxMs;
    const signal = (this.#abort ??= new AbortController()).signal;
    return {
      bounds,
      request: (method, params) => request(method, params, { timeoutMs: Math.max(1, deadline - target.now()), signal }),
      expired: () => target.now() >= deadline,
    };
  }
}
