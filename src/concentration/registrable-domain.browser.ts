/**
 * The browser/edge twin of `registrable-domain.ts`: no public-suffix list. The list is
 * ~48 KiB of a page's gzipped bytes (more than the pool itself), and a correct ICANN-only copy
 * still ~30 KiB; `tldts-icann` cannot tell a real suffix from its catch-all rule. Loading it
 * later with `import()` would not do either: endpoint ids and operators are fixed when the pool
 * is constructed, so a pool made before the list arrived would group differently from one
 * made after.
 *
 * So no hostname has a registrable domain here, and every caller takes its safe path: a named
 * host without `operator` is its own operator (`host-<hash>`, never a label of the host, which
 * may be a key), every label of a host counts as a possible secret for redaction, and a
 * redacted URL shows only its last label. Give endpoints of one provider the same `operator`
 * to group them in a browser.
 */
export function registrableDomain(_hostname: string): string | undefined {
  return undefined;
}
