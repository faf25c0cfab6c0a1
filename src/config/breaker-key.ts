/**
 * What one host circuit breaker covers. Keyed by host AND port: local nodes, docker port maps
 * and single-IP providers put independent nodes on one address, and a bad node on
 * `127.0.0.1:8899` must not take a healthy one on `127.0.0.1:8900` out of rotation. When the
 * endpoint names its `operator`, that is the key instead: the user said which endpoints fail
 * together (and which do not, however their URLs look).
 *
 * Internal only: the host may carry an API key (a subdomain), so the key never leaves the
 * process unhashed and is never shown.
 */
export function breakerKeyOf(url: string, operator?: string): string {
  const named = operator?.trim();
  if (named !== undefined && named !== '') return `operator\u0000${named}`;
  // `URL#host` is the lower-cased hostname plus the port when it is not the scheme's default,
  // so `https://a.example` and `https://a.example:443` share one breaker.
  return `host\u0000${new URL(url).host}`;
}
