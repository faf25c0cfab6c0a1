/**
 * `sturdy-rpc/ethers`: an ethers v6 provider over the pool. Run: `npx tsx examples/adapters/ethers.ts`
 */
import { SturdyProvider } from '../../src/adapters/ethers.js'; // 'sturdy-rpc/ethers'
import { HttpTransportPool } from '../../src/index.js'; // 'sturdy-rpc'
import { EVM_RESULTS, startLocalNode } from './local-node.js';

const node = await startLocalNode(EVM_RESULTS);
const pool = new HttpTransportPool({ endpoints: [{ id: 'local', url: node.url }], chain: 'evm' });
const provider = new SturdyProvider(pool);

console.log('chain id', (await provider.getNetwork()).chainId);
// Concurrent calls: ethers batches them; each becomes its own pool call.
const [balance, block] = await Promise.all([provider.getBalance('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'), provider.getBlockNumber()]);
console.log('balance (wei)', balance, 'block', block);

provider.destroy(); // stops the provider, not the pool
await pool.close();
await node.close();
