/**
 * Which endpoint takes a subscription (pure), at first placement and at every rebind.
 *
 * 1. Candidates: endpoints with a WebSocket URL that are in rotation (chain verified or
 *    unchecked, not benched by reputation or an open host breaker, not paused after a
 *    socket failure), minus the endpoint that just failed this subscription when another
 *    can take it. When every candidate is benched, the benched ones are used (the pool's
 *    collapse guard: a socket on a poor endpoint beats none). One leg of a redundant pair
 *    never goes where the other is live (`apart`), and goes to another operator when one
 *    is a candidate, whatever its tier: the pair is there to be independent.
 * 2. The most preferred tier among them.
 * 3. The operator cap, counted in open subscriptions per operator of that tier: an operator
 *    may take one more only if it then holds at most `maxOperatorShare` of the tier's
 *    subscriptions. Off when the cap is ≤ 0 or ≥ 1, or infeasible (cap × operators < 1; at
 *    equality every operator holds exactly its cap).
 * 4. Inside the best reputation band among the operators the cap allows, the endpoint with
 *    the fewest open subscriptions: a rollover re-spreads across the tied-best band instead
 *    of pinning to one endpoint. When the cap allows no operator of the best band, the
 *    other bands of the tier are tried, then the least-loaded operator of the best band.
 */

export type CandidateStatus = 'eligible' | 'benched' | 'pending' | 'gone';

export interface SelectionCandidate {
  readonly endpointId: string;
  readonly operator: string;
  readonly tier: number;
  /** Reputation band rank, 0 best. */
  readonly band: number;
  readonly status: CandidateStatus;
  /** Paused after a socket failure (backoff) until a later instant. */
  readonly paused: boolean;
  /** Subscriptions open (or being placed) on this endpoint. */
  readonly subscriptions: number;
}

export type SelectionResult =
  | { readonly type: 'chosen'; readonly endpointId: string }
  /** Some endpoint may take it later (benched, paused, chain check pending). */
  | { readonly type: 'wait' }
  /** No endpoint can ever take it (no WebSocket URL, or every one on another chain). */
  | { readonly type: 'none' };

const CHOSEN = (endpointId: string): SelectionResult => ({ type: 'chosen', endpointId });

export function selectEndpoint(
  candidates: readonly SelectionCandidate[],
  parameters: { readonly avoid?: string | undefined; readonly apart?: string | undefined; readonly maxOperatorShare: number; readonly rotation: number },
): SelectionResult {
  const alive = candidates.filter((c) => c.status !== 'gone');
  if (alive.length === 0) return { type: 'none' };
  const apart = parameters.apart;
  const open = apart === undefined ? alive : alive.filter((c) => c.endpointId !== apart);
  const ready = open.filter((c) => !c.paused && c.status === 'eligible');
  const benched = ready.length > 0 ? ready : open.filter((c) => !c.paused && c.status === 'benched');
  if (benched.length === 0) return { type: 'wait' };
  const others = benched.filter((c) => c.endpointId !== parameters.avoid);
  const usable = apartFrom(alive, others.length > 0 ? others : benched, apart);

  let tier = Number.POSITIVE_INFINITY;
  for (const c of usable) tier = Math.min(tier, c.tier);
  const inTier = usable.filter((c) => c.tier === tier);
  const allowed = operatorsUnderCap(
    alive.filter((c) => c.tier === tier),
    inTier,
    parameters.maxOperatorShare,
  );

  const bestBand = Math.min(...inTier.map((c) => c.band));
  const best = inTier.filter((c) => c.band === bestBand);
  const pick =
    leastLoaded(best.filter((c) => allowed === undefined || allowed.has(c.operator)), parameters.rotation) ??
    leastLoaded(inTier.filter((c) => allowed === undefined || allowed.has(c.operator)), parameters.rotation) ??
    leastLoaded(leastLoadedOperator(best), parameters.rotation);
  return CHOSEN(pick!.endpointId);
}

/** `members` on another operator than endpoint `apart`'s, when there are any. */
function apartFrom(alive: readonly SelectionCandidate[], members: readonly SelectionCandidate[], apart: string | undefined): readonly SelectionCandidate[] {
  if (apart === undefined) return members;
  const operator = alive.find((c) => c.endpointId === apart)?.operator;
  const elsewhere = members.filter((c) => c.operator !== operator);
  return elsewhere.length > 0 ? elsewhere : members;
}

/** Operators that may take one more subscription under the cap; undefined when the cap is off. */
function operatorsUnderCap(tierMembers: readonly SelectionCandidate[], usable: readonly SelectionCandidate[], cap: number): Set<string> | undefined {
  if (!(cap > 0 && cap < 1)) return undefined;
  const usableOperators = new Set(usable.map((c) => c.operator));
  // Feasible at equality too: two operators under 0.5 each hold exactly half.
  if (usableOperators.size < 2 || cap * usableOperators.size < 1) return undefined;
  const counts = operatorCounts(tierMembers);
  let total = 0;
  for (const n of counts.values()) total += n;
  const allowed = new Set<string>();
  for (const operator of usableOperators) if ((counts.get(operator) ?? 0) + 1 <= cap * (total + 1)) allowed.add(operator);
  return allowed;
}

function operatorCounts(members: readonly SelectionCandidate[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const c of members) counts.set(c.operator, (counts.get(c.operator) ?? 0) + c.subscriptions);
  return counts;
}

function leastLoadedOperator(members: readonly SelectionCandidate[]): SelectionCandidate[] {
  const counts = operatorCounts(members);
  let min = Number.POSITIVE_INFINITY;
  for (const n of counts.values()) min = Math.min(min, n);
  return members.filter((c) => counts.get(c.operator) === min);
}

/** Fewest subscriptions; ties broken by rotating through the candidates (so equal endpoints share). */
function leastLoaded(members: readonly SelectionCandidate[], rotation: number): SelectionCandidate | undefined {
  if (members.length === 0) return undefined;
  let best: SelectionCandidate | undefined;
  const n = members.length;
  for (let i = 0; i < n; i++) {
    const c = members[(i + rotation) % n]!;
    if (best === undefined || c.subscriptions < best.subscriptions) best = c;
  }
  return best;
}
