// An application imports these from 'sturdy-rpc', 'sturdy-rpc/solana' and 'sturdy-rpc/testing'.
/**
 * The two opt-ins that make a pool safe against configuration mistakes and lost answers:
 *
 * - `expectedChain`: each endpoint is asked its genesis hash before it takes a call; a node on
 *   another cluster (here a devnet URL pasted into a mainnet pool) is excluded for good and
 *   never sees a single call — not a read, not a send.
 * - `reconcileSends`: the primary reads the send and resets the connection, so the answer is
 *   lost. Instead of failing with AMBIGUOUS_DISPATCH, the pool looks the signature up with
 *   `getSignatureStatuses`, finds it, and returns it. The transaction is never sent again.
 *
 * Runs offline only: three fixture servers on 127.0.0.1 play the nodes; the "transaction" is a
 * well-formed wire transaction with made-up bytes (signed by @solana/kit or web3.js in an app).
 *
 *   node --import tsx examples/guarded-pool.ts
 */
import { HttpTransportPool } from '../src/index.js';
import { createSolanaClient, SOLANA_GENESIS_HASHES, solanaSignatureFromWire } from '../src/solana/index.js';
import { createFixtureServer, resultFixture } from '../src/testing/index.js';

/** Wire format: compact-u16 signature count (1), one 64-byte signature, then the message bytes. */
const bytes = new Uint8Array(1 + 64 + 96).map((_, i) => (i === 0 ? 1 : (i * 31 + 5) & 0xff));
const wire = Buffer.from(bytes).toString('base64');
const signature = solanaSignatureFromWire(wire, 'base64');
if (signature === undefined) throw new Error('malformed wire transaction');

const fixtures = [
  resultFixture('solana', 'getGenesisHash', [], SOLANA_GENESIS_HASHES['mainnet-beta']),
  resultFixture('solana', 'getSlot', [], 341197060),
  resultFixture('solana', 'sendTransaction', [wire, { encoding: 'base64', skipPreflight: true }], signature),
  // The cluster has seen the transaction: the primary processed it before the reset.
  resultFixture('solana', 'getSignatureStatuses', [[signature], { searchTransactionHistory: false }], {
    context: { slot: 341197061 },
    value: [{ slot: 341197060, confirmations: 0, err: null, status: { Ok: null }, confirmationStatus: 'processed' }],
  }),
];
const primary = await createFixtureServer({ fixtures, behaviours: { sendTransaction: [{ type: 'reset' }] } });
const devnet = await createFixtureServer({ fixtures, behaviours: { '*': [{ type: 'wrong-genesis' }] } });
const backup = await createFixtureServer({ fixtures });

const pool = new HttpTransportPool({
  endpoints: [
    { id: 'primary', url: primary.url, tier: 0 },
    { id: 'misconfigured', url: devnet.url, tier: 0 },
    { id: 'backup', url: backup.url, tier: 1 },
  ],
  chain: 'solana',
  expectedChain: { genesisHash: SOLANA_GENESIS_HASHES['mainnet-beta'] },
  reconcileSends: { windowMs: 2_000, intervalMs: 200 },
});
pool.on('chain', (e) => console.log(`chain check: ${e.endpointId} ${e.status}${e.reported === undefined ? '' : ` (reported ${e.reported.slice(0, 8)}…)`}`));
pool.on('reconcile', (e) => console.log(`reconcile: ${e.method} to '${e.endpointId}' ${e.found ? 'found' : 'not found'} after ${e.lookups} lookup(s)`));

try {
  for (let i = 0; i < 6; i++) await pool.request('getSlot', []);
  console.log('6 reads served');
  const sent = await createSolanaClient(pool).sendTransaction(wire, { skipPreflight: true }, { timeoutMs: 5_000 });
  console.log(`sendTransaction resolved: ${sent === signature ? 'the transaction signature' : sent}`);
  const count = (node: typeof primary) => `${node.count('sendTransaction')} send(s), ${node.count('getSlot')} read(s)`;
  console.log(`primary: ${count(primary)}; misconfigured: ${count(devnet)}; backup: ${count(backup)}`);
} finally {
  await pool.close();
  await Promise.all([primary.close(), devnet.close(), backup.close()]);
}
