/**
 * The k-th smallest of the first `length` values of `values` (0-based), found in linear
 * expected time by partitioning in place (Hoare's selection). The hedge delay needs one
 * high quantile of 512 latencies; sorting them all for it cost several times more. The
 * order of `values` is changed, so callers pass a scratch copy.
 */
export function selectKth(values: Float64Array, length: number, k: number): number {
  let low = 0;
  let high = length - 1;
  while (high > low) {
    // Median of three as the pivot: sorted or reversed input stays linear.
    const middle = (low + high) >>> 1;
    const pivot = medianOfThree(values[low]!, values[middle]!, values[high]!);
    let i = low;
    let j = high;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const swap = values[i]!;
        values[i] = values[j]!;
        values[j] = swap;
        i++;
        j--;
      }
    }
    // [low, j] ≤ pivot ≤ [i, high]; values between j and i equal the pivot.
    if (k <= j) high = j;
    else if (k >= i) low = i;
    else return values[k]!;
  }
  return values[k]!;
}

function medianOfThree(a: number, b: number, c: number): number {
  if (a < b) return b < c ? b : a < c ? c : a;
  return a < c ? a : b < c ? c : b;
}
