/** Endpoint indices grouped by backend: the same URL and headers are one node, probed once. */
export function backendsOf(endpoints: readonly { readonly index: number; readonly url: string; readonly headers: Readonly<Record<string, string>> }[]): number[][] {
  const byKey = new Map<string, number[]>();
  for (const endpoint of endpoints) {
    const key = `${endpoint.url}\u0000${JSON.stringify(Object.entries(endpoint.headers).sort())}`;
    const list = byKey.get(key);
    if (list) list.push(endpoint.index);
    else byKey.set(key, [endpoint.index]);
  }
  return [...byKey.values()];
}
