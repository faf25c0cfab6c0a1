// An application imports these from 'sturdy-rpc', 'sturdy-rpc/metrics/prometheus' and 'sturdy-rpc/testing'.
/**
 * Monitoring a pool: the Prometheus exporter (what a /metrics endpoint would serve), the
 * `logger` option (state changes, once each), and `pool.serveStatus()` read the way
 * `sturdy-rpc top --port <port>` reads it. All of it names endpoints by id and operator only:
 * the URLs below carry a fake API key, and the program checks that neither a URL nor the key
 * appears anywhere in what it collected.
 *
 * Runs offline: three fixture servers on 127.0.0.1 — one healthy, one answering 503, one
 * rate-limiting above 5 requests per second. The failing node is addressed as `localhost`
 * (breakers are per host and port, so a port of its own would do too).
 *
 *   node --import tsx examples/monitoring.ts
 */
import { fileURLToPath } from 'node:url';
import { Registry } from 'prom-client';
import { registerPrometheusMetrics } from '../src/metrics/prometheus.js';
import { createSeededRandom, HttpTransportPool, isTransportError, type PoolLogger, type StatusDocument } from '../src/index.js';
import { createFixtureServer, loadFixtures } from '../src/testing/index.js';

const fixtures = loadFixtures([fileURLToPath(new URL('../fixtures/solana-getBalance.json', import.meta.url))]);
const healthy = await createFixtureServer({ fixtures });
const failing = await createFixtureServer({ fixtures, behaviours: [{ type: 'http-error', status: 503 }] });
const busy = await createFixtureServer({ fixtures, behaviours: [{ type: 'rate-limit', requestsPerSecond: 5, retryAfterSeconds: 1 }] });
const KEY = 'sk-live-0123456789abcdef';
const urls = [`${healthy.url}/v2/${KEY}`, `http://localhost:${failing.port}/v2/${KEY}`, `${busy.url}/?api-key=${KEY}`];

/** A logger with pino's shape; here it keeps the lines to print them and check them. */
const logLines: string[] = [];
const log = (level: string) => (fields: Readonly<Record<string, unknown>>, message: string) => logLines.push(`${level} ${message} ${JSON.stringify(fields)}`);
const logger: PoolLogger = { debug: () => undefined, info: log('info'), warn: log('warn'), error: log('error') };

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
  logger,
});
const registry = new Registry();
registerPrometheusMetrics(pool, { registry });
const status = await pool.serveStatus({ port: 0 });

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
  console.log(`${ok} of 30 reads succeeded\n`);

  // What Prometheus would scrape: the non-zero counters.
  const metrics = await registry.metrics();
  console.log('counters:');
  for (const line of metrics.split('\n').filter((l) => /_total\{/.test(l) && !l.endsWith(' 0'))) console.log(`  ${line}`);

  console.log('\nlog:');
  for (const line of logLines) console.log(`  ${line.slice(0, line.indexOf(' {'))}`);

  // What `sturdy-rpc top --port <port>` reads.
  const document = (await (await fetch(status.url)).json()) as StatusDocument;
  console.log('\nstatus (last 10 s):');
  for (const row of document.recent) console.log(`  ${row.endpointId.padEnd(6)} share ${(row.share * 100).toFixed(0).padStart(3)}%  p50 ${row.p50Ms?.toFixed(1) ?? '-'} ms`);

  const text = [metrics, ...logLines, JSON.stringify(document)].join('\n');
  const leaks = [KEY, ...urls, `:${healthy.port}`, `:${failing.port}`, `:${busy.port}`, 'localhost'].filter((s) => text.includes(s));
  console.log(`\nURLs or keys in the metrics, the log and the status: ${leaks.length === 0 ? 'none' : leaks.join(', ')}`);
  if (leaks.length > 0) process.exitCode = 1;
} finally {
  await pool.close(); // closes the status server too
  await Promise.all([healthy.close(), failing.close(), busy.close()]);
}
