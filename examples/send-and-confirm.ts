// An application imports these from 'sturdy-rpc', 'sturdy-rpc/solana' and 'sturdy-rpc/testing'.
/**
 * Send and confirm, and the one decision that matters: may I sign this again? The node
 * reads the send and then resets the connection, so the answer is lost. sendAndConfirm does
 * not send it again; it waits for the signature and says how it ended:
 * - confirmed: it landed (check `err`): never sign it again;
 * - expired:   its blockhash provably expired without it: re-signing is safe;
 * - unknown:   the deadline came first: it may still land: do not re-sign yet.
 *
 * Runs offline only: a fixture server on 127.0.0.1 plays the node, and the transaction is a
 * well-formed legacy transaction with a made-up signature (in an application it comes from
 * @solana/kit or @solana/web3.js, signed).
 *
 *   node --import tsx examples/send-and-confirm.ts
 */
import { HttpTransportPool } from '../src/index.js';
import { createSolanaClient, solanaSignatureFromWire, type SendAndConfirmReturnType } from '../src/solana/index.js';
import { createFixtureServer, resultFixture } from '../src/testing/index.js';

/** compact-u16 count 1, one 64-byte signature, then a message: header 1/0/1, 2 keys, a blockhash, no instructions. */
function wireTransaction(): string {
  const signature = Array.from({ length: 64 }, (_, i) => (i * 29 + 7) & 0xff);
  const key = (seed: number) => Array.from({ length: 32 }, (_, i) => (i * 13 + seed) & 0xff);
  return Buffer.from([1, ...signature, 1, 0, 1, 2, ...key(1), ...key(2), ...key(3), 0]).toString('base64');
}

const wire = wireTransaction();
const signature = solanaSignatureFromWire(wire, 'base64');
if (signature === undefined) throw new Error('malformed wire transaction');

const node = await createFixtureServer({
  fixtures: [
    resultFixture('solana', 'sendTransaction', [wire, { encoding: 'base64' }], signature),
    resultFixture('solana', 'getSignatureStatuses', [[signature]], {
      context: { slot: 341197060 },
      value: [{ slot: 341197058, confirmations: 2, err: null, status: { Ok: null }, confirmationStatus: 'confirmed' }],
    }),
  ],
  behaviours: { sendTransaction: [{ type: 'reset' }] },
});
const pool = new HttpTransportPool({ endpoints: [{ id: 'node', url: node.url }], chain: 'solana' });

function decision(outcome: SendAndConfirmReturnType): string {
  switch (outcome.status) {
    case 'confirmed':
      return outcome.err === null ? `landed in slot ${outcome.slot}: done, never re-sign` : 'landed and failed: handle the error, never re-sign';
    case 'expired':
      return 'can never land: re-sign with a fresh blockhash';
    case 'unknown':
      return 'may still land: wait longer, do not re-sign yet';
  }
}

try {
  const sol = createSolanaClient(pool);
  // lastValidBlockHeight comes from the getLatestBlockhash the transaction was signed with.
  const outcome = await sol.sendAndConfirm(wire, { commitment: 'confirmed', timeoutMs: 30_000, lastValidBlockHeight: 319_614_320n });
  console.log(`send: ${outcome.dispatch} (the node read it, then the connection reset)`);
  console.log(`outcome: ${outcome.status}`);
  console.log(`decision: ${decision(outcome)}`);
  console.log(`sendTransaction received: ${node.count('sendTransaction')}`);
} finally {
  await pool.close();
  await node.close();
}
