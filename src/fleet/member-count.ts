/**
 * How many members to assume for the local share. A heartbeat's answer can undercount: after
 * a `FLUSHALL` (or a Redis restart) the members set is rebuilt one heartbeat at a time, so the
 * processes read 1, 2, 3, 4 and — were Redis to go away then — would send quota × (1 + ½ + ⅓ +
 * ¼). The same happens at start-up, before every member has heartbeated once. So the count
 * assumed is the largest one read over the last two heartbeat periods (every live member
 * heartbeats once a period, so a rebuilt set is whole again within one), and at least the
 * configured `expectedMembers` until a full period of heartbeats has been answered. Never
 * fewer: too small a count lets the fleet exceed the quota, too large one only spends less.
 */
export class MemberCount {
  readonly #expected: number;
  readonly #periodMs: number;
  /** Heartbeat answers: when the heartbeat was sent, and the live members it counted. */
  #samples: { readonly sentAtMs: number; readonly members: number }[] = [];
  #firstSentAtMs: number | undefined;

  constructor(expected: number, heartbeatMs: number) {
    this.#expected = Math.max(1, Math.floor(expected));
    this.#periodMs = heartbeatMs;
  }

  /** A heartbeat sent at `sentAtMs` was answered with `members`. */
  record(members: number, sentAtMs: number): void {
    this.#firstSentAtMs ??= sentAtMs;
    this.#samples.push({ sentAtMs, members: Math.max(1, Math.floor(members)) });
    // Kept relative to the newest answer, not to now: while Redis is away the last count holds.
    const newest = Math.max(...this.#samples.map((s) => s.sentAtMs));
    this.#samples = this.#samples.filter((s) => s.sentAtMs >= newest - 2 * this.#periodMs);
  }

  /** The members to divide each quota by. */
  assumed(): number {
    if (this.#samples.length === 0) return this.#expected;
    const seen = Math.max(...this.#samples.map((s) => s.members));
    const newest = Math.max(...this.#samples.map((s) => s.sentAtMs));
    const settled = newest - this.#firstSentAtMs! >= this.#periodMs;
    return settled ? seen : Math.max(seen, this.#expected);
  }
}
