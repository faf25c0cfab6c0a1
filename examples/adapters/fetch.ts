/**
 * `sturdy-rpc/fetch`: a backend's hand-written `fetch(rpcUrl, …)` and web3.js v1, both
 * routed through the pool. Run: `npx tsx examples/adapters/fetch.ts`
 */
import { Connection, PublicKey } from '@solana/web3.js';
import { createPoolFetch } from '../../src/adapters/fetch.js'; // 'sturdy-rpc/fetch' in your code
import { HttpTransportPool } from '../../src/index.js'; // 'sturdy-rpc'
import { SOLANA_RESULTS, startLocalNode } from './local-node.js';

const node = await startLocalNode(SOLANA_RESULTS);
const pool = new HttpTransportPool({ endpoints: [{ id: 'local', url: node.url }] });
const poolFetch = createPoolFetch(pool);

// A raw JSON-RPC batch: one pool call per item, answers in order with your ids.
const response = await poolFetch('https://any-url.invalid/', {
  method: 'POST',
  body: JSON.stringify([
    { jsonrpc: '2.0', id: 'genesis', method: 'getGenesisHash', params: [] },
    { jsonrpc: '2.0', id: 'health', method: 'getHealth', params: [] },
  ]),
});
console.log(response.status, await response.text());

// web3.js v1: its URL is never contacted. web3.js v1 parses lamports as JS numbers, so this
// u64::MAX balance prints rounded; `sturdy-rpc/kit` and `sturdy-rpc/solana` keep it exact.
const connection = new Connection('http://127.0.0.1:9', { fetch: poolFetch });
console.log('genesis', await connection.getGenesisHash());
console.log('version', await connection.getVersion());
console.log('balance (web3.js number)', await connection.getBalance(new PublicKey('83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a')));

await pool.close();
await node.close();
