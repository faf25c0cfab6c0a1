/**
 * Pool-collapse guard: filtering must never leave a call with no endpoint at
 * all when endpoints exist. If every candidate fails the filter, the least-bad ones stay.
 */

/**
 * Keeps the candidates that pass `keep`. When none passes, keeps those with the highest
 * `scoreOf` instead (ties all kept). Returns `candidates` itself when every one passes, so
 * the common case allocates nothing.
 */
export function filterWithCollapseGuard<T>(
  candidates: readonly T[],
  keep: (candidate: T) => boolean,
  scoreOf: (candidate: T) => number,
): readonly T[] {
  let kept: T[] | undefined;
  for (let i = 0; i < candidates.length; i++) {
    const c = candidates[i]!;
    if (keep(c)) {
      kept?.push(c);
    } else if (kept === undefined) {
      kept = candidates.slice(0, i);
    }
  }
  if (kept === undefined) return candidates;
  if (kept.length > 0 || candidates.length === 0) return kept;
  let best = -Infinity;
  const scores = candidates.map((c) => {
    const s = scoreOf(c);
    if (s > best) best = s;
    return s;
  });
  return candidates.filter((_, i) => scores[i] === best);
}
