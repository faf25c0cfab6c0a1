/**
 * A binary min-heap of small integer items (`0 … capacity − 1`) ordered by an external
 * `keys` array, with O(log n) update/removal of any item and an allocation-free, read-only
 * walk in key order. The weighted rotation keeps its operators in two of these so that one
 * admission costs O(log M) instead of a sort of all M operators.
 *
 * Ties are broken by `tieRanks` (lower first), so the order never depends on the history of
 * insertions — the rotation's random start decides them.
 */
export class IndexedHeap {
  private readonly items: Int32Array;
  private readonly positions: Int32Array;
  private count = 0;
  // Walk frontier: heap positions whose parent was already yielded, itself a min-heap.
  private readonly frontier: Int32Array;
  private frontierCount = 0;

  constructor(
    capacity: number,
    private readonly keys: Float64Array,
    private readonly tieRanks: Int32Array,
  ) {
    this.items = new Int32Array(capacity);
    this.positions = new Int32Array(capacity).fill(-1);
    this.frontier = new Int32Array(capacity + 1);
  }

  get size(): number {
    return this.count;
  }

  has(item: number): boolean {
    return this.positions[item] !== -1;
  }

  /** The item with the smallest key, or -1 when empty. */
  peek(): number {
    return this.count === 0 ? -1 : this.items[0]!;
  }

  push(item: number): void {
    const position = this.count++;
    this.items[position] = item;
    this.positions[item] = position;
    this.siftUp(position);
  }

  remove(item: number): void {
    const position = this.positions[item]!;
    const last = this.items[--this.count]!;
    this.positions[item] = -1;
    if (last === item) return;
    this.items[position] = last;
    this.positions[last] = position;
    this.update(last);
  }

  /** Restores heap order after `keys[item]` changed. */
  update(item: number): void {
    this.siftDown(this.siftUp(this.positions[item]!));
  }

  /** Starts a walk of the items in key order (the heap must not change during the walk). */
  startWalk(): void {
    this.frontierCount = 0;
    if (this.count > 0) this.frontier[this.frontierCount++] = 0;
  }

  /** The next item of the walk, or -1 when every item was yielded. O(log k) for the k-th. */
  nextInWalk(): number {
    if (this.frontierCount === 0) return -1;
    const frontier = this.frontier;
    const top = frontier[0]!;
    // Pop the frontier's smallest position, then admit its two children.
    frontier[0] = frontier[--this.frontierCount]!;
    this.siftFrontier();
    for (let child = 2 * top + 1; child <= 2 * top + 2 && child < this.count; child++) {
      let index = this.frontierCount++;
      frontier[index] = child;
      while (index > 0) {
        const parent = (index - 1) >> 1;
        if (!this.before(this.items[frontier[index]!]!, this.items[frontier[parent]!]!)) break;
        const swap = frontier[parent]!;
        frontier[parent] = frontier[index]!;
        frontier[index] = swap;
        index = parent;
      }
    }
    return this.items[top]!;
  }

  private before(a: number, b: number): boolean {
    const keyA = this.keys[a]!;
    const keyB = this.keys[b]!;
    return keyA < keyB || (keyA === keyB && this.tieRanks[a]! < this.tieRanks[b]!);
  }

  private siftUp(position: number): number {
    const items = this.items;
    const item = items[position]!;
    while (position > 0) {
      const parent = (position - 1) >> 1;
      const above = items[parent]!;
      if (!this.before(item, above)) break;
      items[position] = above;
      this.positions[above] = position;
      position = parent;
    }
    items[position] = item;
    this.positions[item] = position;
    return position;
  }

  private siftDown(position: number): void {
    const items = this.items;
    const item = items[position]!;
    for (;;) {
      let child = 2 * position + 1;
      if (child >= this.count) break;
      if (child + 1 < this.count && this.before(items[child + 1]!, items[child]!)) child++;
      const below = items[child]!;
      if (!this.before(below, item)) break;
      items[position] = below;
      this.positions[below] = position;
      position = child;
    }
    items[position] = item;
    this.positions[item] = position;
  }

  private siftFrontier(): void {
    const frontier = this.frontier;
    let index = 0;
    for (;;) {
      let child = 2 * index + 1;
      if (child >= this.frontierCount) return;
      if (
        child + 1 < this.frontierCount &&
        this.before(this.items[frontier[child + 1]!]!, this.items[frontier[child]!]!)
      ) {
        child++;
      }
      if (!this.before(this.items[frontier[child]!]!, this.items[frontier[index]!]!)) return;
      const swap = frontier[child]!;
      frontier[child] = frontier[index]!;
      frontier[index] = swap;
      index = child;
    }
  }
}
