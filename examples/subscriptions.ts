// An application imports these from 'sturdy-rpc', 'sturdy-rpc/solana' and 'sturdy-rpc/testing'.
/**
 * WebSocket subscriptions that survive their endpoints:
 *
 * - A bot follows an account (`onAccountChange`). Its node drops the socket: the iterator
 *   goes on from the backup with a `rebind` item — the bot's cue to re-read the balance over
 *   HTTP, since account changes made while the socket was down are not replayed.
 * - A wallet waits for a confirmation (`onSignature`). The socket drops and the transaction
 *   confirms while it is down: the status check after the rebind finds it; it is not missed.
 *
 * Runs offline only: two fixture servers on 127.0.0.1 play the nodes (HTTP and WebSocket on
 * one port each). With a real provider: `{ url: 'https://…', wsUrl: 'wss://…' }`.
 *
 *   node --import tsx examples/subscriptions.ts
 */
import { HttpTransportPool } from '../src/index.js';
import { createSolanaClient } from '../src/solana/index.js';
import { createFixtureServer, resultFixture } from '../src/testing/index.js';

const ACCOUNT = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
const SIGNATURE = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW';
const statuses = (confirmationStatus: string | null) =>
  resultFixture('solana', 'getSignatureStatuses', [[SIGNATURE], { searchTransactionHistory: false }], {
    context: { slot: 341197070 },
    value: [confirmationStatus === null ? null : { slot: 341197069, confirmations: 1, err: null, confirmationStatus }],
  });
const fixtures = [resultFixture('solana', 'getBalance', [ACCOUNT], { context: { slot: 341197066 }, value: 2_500_000_000 }), statuses(null)];
const primary = await createFixtureServer({ fixtures, websocket: { slotIntervalMs: 0 } });
const backup = await createFixtureServer({ fixtures, websocket: { slotIntervalMs: 0 } });

const pool = new HttpTransportPool({
  endpoints: [
    { id: 'primary', url: primary.url, wsUrl: primary.wsUrl!, tier: 0 },
    { id: 'backup', url: backup.url, wsUrl: backup.wsUrl!, tier: 1 },
  ],
  chain: 'solana',
});
pool.on('subscription', (e) => {
  if (e.phase === 'rebound') console.log(`event: ${e.method} moved ${e.fromEndpointId} -> ${e.endpointId} (${e.reason})`);
});
const sol = createSolanaClient(pool);
const change = (slot: number, lamports: number) => ({
  context: { slot },
  value: { lamports, owner: '11111111111111111111111111111111', data: ['', 'base64'], executable: false, rentEpoch: 18446744073709551615n, space: 0 },
});

// --- The bot: follow an account, re-read it after a rebind. ---
const changes = await sol.onAccountChange(ACCOUNT, { commitment: 'confirmed' });
primary.ws!.notify('accountSubscribe', change(341197061, 1_000_000_000));
let seen = 0;
for await (const item of changes) {
  if (item.kind === 'notification') {
    console.log(`account changed at slot ${item.value.slot} on ${item.endpointId}: ${item.value.account.lamports} lamports (rentEpoch ${item.value.account.rentEpoch})`);
    if (++seen === 1) primary.ws!.drop(); // the provider restarts
    if (seen === 2) break; // for-await's break closes the subscription
  } else if (item.kind === 'rebind') {
    const { value, slot } = await sol.getBalance(ACCOUNT);
    console.log(`rebind ${item.fromEndpointId} -> ${item.endpointId}: re-read ${value} lamports at slot ${slot} over HTTP`);
    backup.ws!.notify('accountSubscribe', change(341197067, 3_000_000_000));
  }
}

// --- The wallet: wait for a confirmation across a dropped socket. ---
const confirmed = sol.onSignature(SIGNATURE, { commitment: 'confirmed', signal: AbortSignal.timeout(10_000) });
while (primary.ws!.subscriptions('signatureSubscribe') + backup.ws!.subscriptions('signatureSubscribe') === 0) await new Promise((r) => setTimeout(r, 5));
fixtures[1] = statuses('confirmed'); // it confirms…
for (const node of [primary, backup]) node.ws!.drop(); // …while the socket is down
const { slot, err, via } = await confirmed;
console.log(`confirmed in slot ${slot} (err ${JSON.stringify(err)}), learned by ${via}`);

console.log(`open subscriptions: ${pool.snapshot().subscriptions.reduce((sum, s) => sum + s.subscriptions, 0)}`);
await pool.close();
await Promise.all([primary.close(), backup.close()]);
