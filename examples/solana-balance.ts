// An application imports these from 'sturdy-rpc', 'sturdy-rpc/solana' and 'sturdy-rpc/testing'.
/**
 * A tiered Solana pool reading an exact u64 balance.
 *
 * Tier 0 is preferred. When it answers 429 with `Retry-After`, the pool pauses it for the
 * announced time and sends the same call to tier 1 right away, so the caller gets a balance
 * instead of an error. Events say which endpoint served each call.
 *
 * Runs offline: two fixture servers on 127.0.0.1 act as the nodes. To use a real node, set
 * SOLANA_RPC_URL (and SOLANA_ADDRESS if you want another account).
 *
 *   node --import tsx examples/solana-balance.ts
 */
import { fileURLToPath } from 'node:url';
import { HttpTransportPool, type EndpointConfig } from '../src/index.js';
import { createSolanaClient } from '../src/solana/index.js';
import { createFixtureServer, loadFixtures, type FixtureServer } from '../src/testing/index.js';

const address = process.env.SOLANA_ADDRESS ?? '83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a';
const servers: FixtureServer[] = [];

async function endpoints(): Promise<EndpointConfig[]> {
  const rpcUrl = process.env.SOLANA_RPC_URL;
  if (rpcUrl) return [{ id: 'solana-rpc', url: rpcUrl }];
  // This fixture's balance is u64::MAX, far above 2^53, where JSON.parse loses digits.
  const fixtures = loadFixtures([fileURLToPath(new URL('../fixtures/solana-getBalance-u64-max.json', import.meta.url))]);
  const limited = await createFixtureServer({ fixtures, behaviours: [{ type: 'rate-limit', retryAfterSeconds: 2 }] });
  const healthy = await createFixtureServer({ fixtures });
  servers.push(limited, healthy);
  return [
    { id: 'primary', url: limited.url, tier: 0 },
    { id: 'backup', url: healthy.url, tier: 1 },
  ];
}

const pool = new HttpTransportPool({ endpoints: await endpoints(), chain: 'solana' });
try {
  pool.on('rate-limited', (e) => {
    console.log(`  ${e.endpointId}: 429, Retry-After ${e.providerDelayMs ?? '-'} ms; paused for ${e.cooldownMs} ms`);
  });
  pool.on('success', (e) => console.log(`  served by ${e.endpointId} (attempt ${e.attempt}, ${Math.round(e.latencyMs)} ms)`));

  const sol = createSolanaClient(pool);
  let lamports = 0n;
  for (const read of [1, 2]) {
    console.log(`read ${read}:`);
    const { slot, value } = await sol.getBalance(address, {}, { timeoutMs: 5_000 });
    console.log(`  balance ${value} lamports at slot ${slot}`);
    lamports = value;
  }
  // The second read went straight to the backup: the primary was still paused.
  console.log(`exact bigint: ${lamports} (as a JS number it would read ${Number(lamports)})`);
} finally {
  await pool.close();
  await Promise.all(servers.map((server) => server.close()));
}
