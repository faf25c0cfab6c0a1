/**
 * The operator cap as a ceiling (docs/concepts.md "Operator cap"). The tier's rotation already follows the
 * cap's water-filled shares; latency-aware choice may move a call from the rotation's
 * candidate to another, and this ceiling decides whether that other operator may take one
 * more: not when it would pass `cap` of the tier's recent admissions (plus one request).
 * It never picks anyone and never refuses the rotation's own choice, so an operator that
 * had to carry everyone's traffic while the others were blocked owes nothing afterwards.
 *
 * Counts are exact between halvings: every {@link HALVE_AT} admissions all counts are halved,
 * so the ceiling follows recent traffic instead of a pool's whole life.
 */
export const HALVE_AT = 1_024;

export class OperatorCeiling {
  readonly cap: number;
  readonly #counts: Float64Array;
  #total = 0;

  constructor(cap: number, operators: number) {
    this.cap = cap;
    this.#counts = new Float64Array(operators);
  }

  /** Whether one more admission may go to `operator` without passing the ceiling. */
  allows(operator: number): boolean {
    return this.#counts[operator]! + 1 <= this.cap * (this.#total + 1) + 1;
  }

  /** Counts an admission that went to `operator`. */
  record(operator: number): void {
    this.#counts[operator]!++;
    if (++this.#total >= HALVE_AT) {
      for (let o = 0; o < this.#counts.length; o++) this.#counts[o]! /= 2;
      this.#total /= 2;
    }
  }

  /** Share of the counted admissions that went to `operator` (0 before any). */
  shareOf(operator: number): number {
    return this.#total === 0 ? 0 : this.#counts[operator]! / this.#total;
  }
}
