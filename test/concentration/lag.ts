/** Largest |count − prefix·target| over every prefix and every operator: 1 means "within one request". */
export function worstLag(operators: readonly number[], targets: readonly number[]): number {
  const counts = targets.map(() => 0);
  let worst = 0;
  operators.forEach((operator, i) => {
    counts[operator]!++;
    counts.forEach((count, o) => {
      worst = Math.max(worst, Math.abs(count - (i + 1) * targets[o]!));
    });
  });
  return worst;
}
