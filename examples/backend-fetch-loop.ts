// An application imports these from 'sturdy-rpc' and 'sturdy-rpc/testing'.
/**
 * A backend job (refresh some balances) moved off a hand-written `fetch(rpcUrl)` loop onto
 * `pool.request`, with one deadline per call and an AbortSignal for shutdown.
 *
 * BEFORE — what many backends run today:
 *
 *   const RPC_URLS = [process.env.RPC_A!, process.env.RPC_B!];
 *   async function rpc(method: string, params: unknown[]): Promise<any> {
 *     for (const url of RPC_URLS) {
 *       try {
 *         const res = await fetch(url, {                  // no timeout: a node that accepts the
 *           method: 'POST',                               // request and never answers stalls the job
 *           headers: { 'content-type': 'application/json' },
 *           body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
 *         });
 *         const body = await res.json();                  // a 429 or an HTML 502 page throws here;
 *         if (body.error) throw new Error(body.error.message); // u64 values above 2^53 lose digits
 *         return body.result;
 *       } catch (error) {
 *         console.warn(`RPC ${url} failed`, error);       // logs the URL, API key included
 *       }                                                 // and tries the next one at once, even after
 *     }                                                   // a 429 asked to wait; the next call starts
 *     throw new Error('all RPC endpoints failed');        // again on the node that just failed
 *   }
 *
 * AFTER — below. Runs offline: two fixture servers on 127.0.0.1 play the providers;
 * `provider-a` never answers every second request it gets.
 *
 *   node --import tsx examples/backend-fetch-loop.ts
 */
import { fileURLToPath } from 'node:url';
import { HttpTransportPool, isTransportError } from '../src/index.js';
import { createFixtureServer, loadFixtures } from '../src/testing/index.js';

const fixtures = loadFixtures([fileURLToPath(new URL('../fixtures/solana-getBalance.json', import.meta.url))]);
const providerA = await createFixtureServer({ fixtures, behaviours: [{ type: 'hang', everyNth: 2 }] });
const providerB = await createFixtureServer({ fixtures });

const pool = new HttpTransportPool({
  endpoints: [
    // requestTimeoutMs bounds one attempt: a silent node costs at most 500 ms, then a peer is tried.
    { id: 'provider-a', url: providerA.url, requestTimeoutMs: 500 },
    { id: 'provider-b', url: providerB.url, requestTimeoutMs: 500 },
  ],
  chain: 'solana',
});
pool.on('failure', (e) => console.log(`  attempt ${e.attempt} on ${e.endpointId}: ${e.cause} after ${Math.round(e.latencyMs)} ms`));

// One controller for the whole process: SIGTERM ends calls in flight instead of waiting for them.
const shutdown = new AbortController();
const onSigterm = () => shutdown.abort(new Error('SIGTERM'));
process.once('SIGTERM', onSigterm);

/** The drop-in for the old `rpc()`: one deadline for the whole call, retries included. */
function rpc(method: string, params: readonly unknown[]): Promise<unknown> {
  return pool.request(method, params, { timeoutMs: 2_000, signal: shutdown.signal });
}

/** The job: read each wallet's balance. `pool.request` returns the node's `result`, integers above 2^53 as bigint. */
async function refreshBalances(wallets: readonly string[]): Promise<void> {
  for (const wallet of wallets) {
    const started = performance.now();
    const result = (await rpc('getBalance', [wallet, { commitment: 'confirmed' }])) as { value: number | bigint };
    console.log(`${wallet.slice(0, 8)}…: ${result.value} lamports (${Math.round(performance.now() - started)} ms)`);
  }
}

try {
  const wallets = ['83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a', '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM'];
  await refreshBalances([...wallets, ...wallets]);
  console.log('job done: every balance read, no call waited more than one attempt timeout on a silent node');

  // Shutdown while a call is in flight: both providers now hang, and SIGTERM arrives 100 ms later.
  providerA.setBehaviours([{ type: 'hang' }]);
  providerB.setBehaviours([{ type: 'hang' }]);
  const sigterm = setTimeout(() => process.emit('SIGTERM'), 100);
  const started = performance.now();
  try {
    await refreshBalances(wallets);
  } catch (error) {
    if (!isTransportError(error, 'ABORTED')) throw error;
    console.log(`shutdown: the call in flight ended with ${error.code} after ${Math.round(performance.now() - started)} ms`);
  } finally {
    clearTimeout(sigterm);
  }
} finally {
  process.off('SIGTERM', onSigterm);
  await pool.close();
  await Promise.all([providerA.close(), providerB.close()]);
}
