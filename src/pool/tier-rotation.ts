/**
 * The in-tier trial order. `begin()` is called once per trial; `at(i)` gives the member
 * index to try in position `i`; `commit(index)` records which member took the call.
 */
export interface TierRotation {
  readonly size: number;
  begin(): void;
  at(position: number): number;
  commit(index: number): void;
}

/**
 * Plain round-robin: exact rotation when every member admits, no allocation per call.
 * After a member admits, the next trial starts at the member after it, so a skipped
 * (blocked) member is tried first again as soon as it can admit.
 */
export class RoundRobinRotation implements TierRotation {
  readonly size: number;
  private offset: number;

  constructor(size: number, start: number) {
    this.size = size;
    this.offset = size === 0 ? 0 : Math.floor(start) % size;
  }

  begin(): void {}

  at(position: number): number {
    const index = this.offset + position;
    return index < this.size ? index : index - this.size;
  }

  commit(index: number): void {
    this.offset = index + 1 === this.size ? 0 : index + 1;
  }
}
