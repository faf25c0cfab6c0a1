/**
 * `sturdy-rpc/viem`: a viem public client over the pool. Run: `npx tsx examples/adapters/viem.ts`
 */
import { createPublicClient, custom } from 'viem';
import { anvil } from 'viem/chains';
import { findTransportError, sturdyTransport } from '../../src/adapters/viem.js'; // 'sturdy-rpc/viem'
import { HttpTransportPool } from '../../src/index.js'; // 'sturdy-rpc'
import { EVM_RESULTS, startLocalNode } from './local-node.js';

const node = await startLocalNode(EVM_RESULTS);
const pool = new HttpTransportPool({ endpoints: [{ id: 'local', url: node.url }], chain: 'evm' });
// viem's own `custom` builds the transport: sturdy-rpc imports nothing from viem.
const client = createPublicClient({ chain: anvil, transport: sturdyTransport(pool, { custom }) });

console.log('chain id', await client.getChainId());
console.log('block', await client.getBlockNumber());
console.log('balance (wei)', await client.getBalance({ address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266' }));

try {
  await client.sendRawTransaction({ serializedTransaction: '0x02' });
} catch (error) {
  // A send that may have reached a node is never resent; check the receipt instead.
  if (findTransportError(error, 'AMBIGUOUS_DISPATCH')) console.log('maybe sent: reconcile by receipt');
  else console.log('not sent:', (error as Error).name);
}

await pool.close();
await node.close();
