/**
 * `sturdy-rpc/kit`: @solana/kit over the pool, u64 values exact. Run: `npx tsx examples/adapters/kit.ts`
 */
import { address, createSolanaRpcFromTransport } from '@solana/kit';
import { kitTransport } from '../../src/adapters/kit.js'; // 'sturdy-rpc/kit'
import { HttpTransportPool } from '../../src/index.js'; // 'sturdy-rpc'
import { SOLANA_RESULTS, startLocalNode } from './local-node.js';

const node = await startLocalNode(SOLANA_RESULTS);
const pool = new HttpTransportPool({ endpoints: [{ id: 'local', url: node.url }], chain: 'solana' });
const rpc = createSolanaRpcFromTransport(kitTransport(pool));

const { value } = await rpc.getBalance(address('83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a')).send();
console.log('lamports (exact bigint)', value);
console.log('genesis', await rpc.getGenesisHash().send());
console.log('health', await rpc.getHealth().send());

await pool.close();
await node.close();
