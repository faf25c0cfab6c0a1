// An application imports these from 'sturdy-rpc', 'sturdy-rpc/solana' and 'sturdy-rpc/testing'.
/**
 * Sending a Solana transaction safely. The first node reads the send and then resets the
 * connection: the transaction may have landed. The pool does not send it to the second node
 * (that could be a duplicate); it fails with AMBIGUOUS_DISPATCH and the transaction's
 * signature, and the caller reconciles with getSignatureStatuses before deciding anything.
 *
 * Runs offline only: two fixture servers on 127.0.0.1 play the nodes, and the "transaction"
 * is a well-formed wire transaction with made-up bytes (in an application it comes from
 * @solana/kit or @solana/web3.js, signed).
 *
 *   node --import tsx examples/safe-send.ts
 */
import { HttpTransportPool, isTransportError } from '../src/index.js';
import { createSolanaClient, solanaSignatureFromWire } from '../src/solana/index.js';
import { createFixtureServer, resultFixture } from '../src/testing/index.js';

/** Wire format: compact-u16 signature count (1), one 64-byte signature, then the message bytes. */
function wireTransaction(): string {
  const bytes = new Uint8Array(1 + 64 + 96);
  bytes[0] = 1;
  for (let i = 1; i < bytes.length; i++) bytes[i] = (i * 29 + 7) & 0xff;
  return Buffer.from(bytes).toString('base64');
}

const wire = wireTransaction();
const signature = solanaSignatureFromWire(wire, 'base64');
if (signature === undefined) throw new Error('malformed wire transaction');

const fixtures = [
  resultFixture('solana', 'sendTransaction', [wire, { encoding: 'base64', skipPreflight: true }], signature),
  // The transaction did land: the node that reset had already forwarded it.
  resultFixture('solana', 'getSignatureStatuses', [[signature], { searchTransactionHistory: true }], {
    context: { slot: 341197060 },
    value: [{ slot: 341197058, confirmations: null, err: null, status: { Ok: null }, confirmationStatus: 'confirmed' }],
  }),
];
const primary = await createFixtureServer({ fixtures, behaviours: { sendTransaction: [{ type: 'reset' }] } });
const peer = await createFixtureServer({ fixtures });
const pool = new HttpTransportPool({
  endpoints: [
    { id: 'primary', url: primary.url, tier: 0 },
    { id: 'peer', url: peer.url, tier: 1 },
  ],
  chain: 'solana',
});

interface SignatureStatus {
  readonly slot: number;
  readonly err: unknown;
  readonly confirmationStatus: 'processed' | 'confirmed' | 'finalized' | null;
}

/** What to do about a send whose fate is unknown. Reads are safe to retry; the send is not repeated. */
async function reconcile(txSignature: string): Promise<string> {
  const result = (await pool.request('getSignatureStatuses', [[txSignature], { searchTransactionHistory: true }], {
    timeoutMs: 5_000,
  })) as { value: readonly (SignatureStatus | null)[] };
  const status = result.value[0] ?? null;
  if (status === null) {
    return 'not seen yet: poll again until its blockhash expires; only then build and sign a new transaction';
  }
  if (status.err !== null) return `landed and failed (${JSON.stringify(status.err)}): handle the failure, do not re-send`;
  return `landed in slot ${status.slot} (${status.confirmationStatus ?? 'unknown'}): done, nothing to re-send`;
}

try {
  console.log(`sending transaction ${signature.slice(0, 16)}…`);
  try {
    const sent = await createSolanaClient(pool).sendTransaction(wire, { skipPreflight: true }, { timeoutMs: 5_000 });
    console.log(`sent: ${sent}`);
  } catch (error) {
    if (!isTransportError(error, 'AMBIGUOUS_DISPATCH')) throw error;
    console.log(`AMBIGUOUS_DISPATCH: endpoint '${error.endpointId}' read the send, then the connection reset`);
    // error.signature is the transaction id, read from the wire bytes that were sent.
    console.log(`reconciling signature ${error.signature?.slice(0, 16)}… with getSignatureStatuses`);
    console.log(`decision: ${await reconcile(error.signature ?? signature)}`);
  }
  console.log(`sendTransaction received: primary ${primary.count('sendTransaction')}, peer ${peer.count('sendTransaction')}`);
} finally {
  await pool.close();
  await Promise.all([primary.close(), peer.close()]);
}
