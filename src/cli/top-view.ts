/**
 * `sturdy-rpc top`'s screen, pure: a status document in, lines out. One row per endpoint:
 * tier, operator, state, score, share of the last window as a bar, p50/p99, in flight,
 * tokens, cooldown, and lag where the snapshot has heads.
 */
import type { PoolSnapshot } from '../pool/snapshot.js';
import type { StatusDocument } from '../status/status-server.js';
import { formatTable } from './table.js';

export interface TopViewOptions {
  /** Cells of the share bar. @default 12 */
  readonly barWidth?: number;
  /** Bar glyphs: `unicode` (█ and ·) or `ascii` (# and .). @default 'unicode' */
  readonly glyphs?: 'unicode' | 'ascii';
}

type EndpointView = PoolSnapshot['endpoints'][number];
type RoleView = PoolSnapshot['roles'][number];

/** The share bar: `share` of `width` cells filled. */
export function shareBar(share: number, width: number, glyphs: 'unicode' | 'ascii'): string {
  const filled = Math.max(0, Math.min(width, Math.round(share * width)));
  const [full, empty] = glyphs === 'unicode' ? ['█', '·'] : ['#', '.'];
  return full.repeat(filled) + empty.repeat(width - filled);
}

/**
 * What an operator reads first, in the order admission checks it: excluded (wrong chain),
 * lagging (admission skips it for reads and sends until it catches up), broken, benched,
 * else the main role's availability.
 */
function stateOf(endpoint: EndpointView, role: RoleView | undefined): string {
  if (endpoint.chain === 'wrong-chain') return 'excluded';
  if (endpoint.health === 'lagging') return 'lagging';
  if (endpoint.breakerOpenRemainingMs > 0) return 'broken';
  if ((endpoint.reputation?.cooldownRemainingMs ?? 0) > 0) return 'benched';
  return role?.availability ?? 'idle';
}

const millis = (ms: number | undefined) => (ms === undefined ? '-' : ms < 10 ? `${ms.toFixed(1)}ms` : `${Math.round(ms)}ms`);
const seconds = (ms: number) => (ms <= 0 ? '-' : `${(ms / 1000).toFixed(1)}s`);

/** The endpoint's lag behind the tip (`endpoints[].head.lag`: a bigint in-process, a number from JSON); undefined until its head is known. */
function lagOf(endpoint: EndpointView): number | undefined {
  const head: unknown = Reflect.get(endpoint, 'head');
  const lag: unknown = typeof head === 'object' && head !== null ? Reflect.get(head, 'lag') : undefined;
  return typeof lag === 'number' ? lag : typeof lag === 'bigint' ? Number(lag) : undefined;
}

/** The screen for one status document. */
export function renderTop(document: StatusDocument, options: TopViewOptions = {}): string[] {
  const barWidth = options.barWidth ?? 12;
  const glyphs = options.glyphs ?? 'unicode';
  const { snapshot } = document;
  const hasLag = snapshot.endpoints.some((e) => lagOf(e) !== undefined);
  const headers = ['endpoint', 'tier', 'operator', 'state', 'score', `share ${Math.round(document.windowMs / 1000)}s`, '', 'p50', 'p99', 'in flight', 'tokens', 'cooldown'];
  if (hasLag) headers.push('lag');
  const rows = snapshot.endpoints.map((endpoint) => {
    const roles = snapshot.roles.filter((r) => r.endpointId === endpoint.endpointId);
    const main = roles.find((r) => r.kind === 'read') ?? roles[0];
    const recent = document.recent.find((r) => r.endpointId === endpoint.endpointId);
    const share = recent?.share ?? 0;
    const tokens = main?.tokens === undefined ? '-' : `${Math.floor(main.tokens)}/${main.burstCapacity ?? '?'}`;
    const cooldownMs = Math.max(0, ...roles.map((r) => r.cooldownRemainingMs), endpoint.reputation?.cooldownRemainingMs ?? 0, endpoint.breakerOpenRemainingMs);
    const row: (string | number)[] = [
      endpoint.endpointId,
      main?.tier ?? '-',
      endpoint.operator,
      stateOf(endpoint, main),
      endpoint.reputation === undefined ? '-' : Math.round(endpoint.reputation.score),
      shareBar(share, barWidth, glyphs),
      `${Math.round(share * 100)}%`,
      millis(recent?.p50Ms),
      millis(recent?.p99Ms),
      endpoint.inFlight,
      tokens,
      seconds(cooldownMs),
    ];
    if (hasLag) row.push(lagOf(endpoint) ?? '-');
    return row;
  });
  const calls = document.recent.reduce((sum, r) => sum + r.attempts, 0);
  const title = `sturdy-rpc top — ${snapshot.endpoints.length} endpoints, ${calls} attempts in the last ${Math.round(document.windowMs / 1000)} s${snapshot.closed ? ' (pool closed)' : ''}`;
  return [title, '', ...formatTable(headers, rows).split('\n')];
}
