// An application imports these from 'sturdy-rpc' and 'sturdy-rpc/testing'.
/**
 * Monitoring a pool: events (`failure`, `cooldown`, `reputation`, `breaker`) become metric
 * counters, and `pool.snapshot()` becomes gauges — here printed as a table. Both name
 * endpoints by id and operator only: the URLs below carry a fake API key, and the program
 * checks that neither a URL nor the key appears anywhere in what it collected.
 *
 * Runs offline: three fixture servers on 127.0.0.1 — one healthy, one answering 503, one
 * rate-limiting above 5 requests per second. The failing node is addressed as `localhost`
 * so it gets a host breaker of its own (breakers are per hostname).
 *
 *   node --import tsx examples/monitoring.ts
 */
import { fileURLToPath } from 'node:url';
import { createSeededRandom, HttpTransportPool, isTransportError, stringifyJson, type PoolSnapshot } from '../src/index.js';
import { createFixtureServer, loadFixtures } from '../src/testing/index.js';

const fixtures = loadFixtures([fileURLToPath(new URL('../fixtures/solana-getBalance.json', import.meta.url))]);
const healthy = await createFixtureServer({ fixtures });
const failing = await createFixtureServer({ fixtures, behaviours: [{ type: 'http-error', status: 503 }] });
const busy = await createFixtureServer({ fixtures, behaviours: [{ type: 'rate-limit', requestsPerSecond: 5, retryAfterSeconds: 1 }] });
const KEY = 'sk-live-0123456789abcdef';
const urls = [`${healthy.url}/v2/${KEY}`, `http://localhost:${failing.port}/v2/${KEY}`, `${busy.url}/?api-key=${KEY}`];

const pool = new HttpTransportPool({
  endpoints: [
    { id: 'main', operator: 'provider-a', url: urls[0]!, requestsPerSecond: 10 },
    { id: 'flaky', operator: 'provider-b', url: urls[1]! },
    { id: 'busy', operator: 'provider-c', url: urls[2]! },
  ],
  chain: 'solana',
  random: createSeededRandom(7), // a reproducible rotation
  // A small breaker so the demo trips it: 3 failures in a 10 s window at a ≥ 20% rate.
  reputation: { hostBreaker: { minFailures: 3, windowMs: 10_000 } },
});

/** Stand-in for prom-client / OpenTelemetry counters: `name{labels}` → count. */
const counters = new Map<string, number>();
const collected: unknown[] = [];
const count = (name: string, labels: Record<string, string>) => {
  const key = `${name}{${Object.entries(labels).map(([k, v]) => `${k}="${v}"`).join(',')}}`;
  counters.set(key, (counters.get(key) ?? 0) + 1);
};
pool.on('failure', (e) => {
  collected.push(e);
  count('rpc_failures_total', { endpoint: e.endpointId, cause: e.cause });
});
pool.on('cooldown', (e) => {
  collected.push(e);
  if (e.phase === 'start') count('rpc_cooldowns_total', { endpoint: e.endpointId });
});
pool.on('reputation', (e) => {
  collected.push(e);
  count('rpc_reputation_changes_total', { endpoint: e.endpointId, band: e.band });
});
pool.on('breaker', (e) => {
  collected.push(e);
  count('rpc_breaker_transitions_total', { operator: e.operator, state: e.state });
});

/** Gauges from a snapshot, one row per endpoint serving reads. */
function printTable(snapshot: PoolSnapshot): void {
  const rows = snapshot.roles
    .filter((role) => role.kind === 'read')
    .map((role) => {
      const endpoint = snapshot.endpoints.find((e) => e.endpointId === role.endpointId);
      return {
        endpoint: role.endpointId,
        operator: endpoint?.operator ?? '-',
        state: role.availability,
        ok: role.successes,
        fail: role.failures,
        '429s': role.rateLimits,
        'cooldown ms': Math.round(role.cooldownRemainingMs),
        score: Math.round(endpoint?.reputation?.score ?? 0),
        band: endpoint?.reputation?.band ?? '-',
        'breaker ms': Math.round(endpoint?.breakerOpenRemainingMs ?? 0),
      };
    });
  const cells = [Object.keys(rows[0] ?? {}), ...rows.map((row) => Object.values(row).map(String))];
  const widths = cells[0]!.map((_, c) => Math.max(...cells.map((row) => row[c]!.length)));
  for (const row of cells) console.log(row.map((cell, c) => cell.padEnd(widths[c]!)).join('  ').trimEnd());
}

try {
  let ok = 0;
  for (let i = 0; i < 30; i++) {
    try {
      await pool.request('getBalance', ['83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a', { commitment: 'confirmed' }], { timeoutMs: 3_000 });
      ok++;
    } catch (error) {
      if (!isTransportError(error)) throw error;
    }
  }
  console.log(`${ok} of 30 reads succeeded`);
  const snapshot = pool.snapshot();
  collected.push(snapshot);
  printTable(snapshot);

  console.log('counters:');
  for (const [key, value] of [...counters].sort()) console.log(`  ${key} ${value}`);

  // Snapshots hold exact bigints (an endpoint's head): stringifyJson writes them as JSON numbers.
  const text = stringifyJson(collected);
  const leaks = [KEY, ...urls, `:${healthy.port}`, `:${failing.port}`, `:${busy.port}`, 'localhost'].filter((s) => text.includes(s));
  console.log(`URLs or keys in ${collected.length} events + snapshot: ${leaks.length === 0 ? 'none' : leaks.join(', ')}`);
  if (leaks.length > 0) process.exitCode = 1;
} finally {
  await pool.close();
  await Promise.all([healthy.close(), failing.close(), busy.close()]);
}
