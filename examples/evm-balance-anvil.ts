// An application imports these from 'sturdy-rpc', 'sturdy-rpc/evm' and 'sturdy-rpc/testing'.
/**
 * Typed EVM reads (balance, chain id, genesis hash) through a pool, against a local anvil.
 *
 * Runs offline: it starts anvil from the `@foundry-rs/anvil-linux-amd64` dev dependency on
 * 127.0.0.1 (a free port) and stops it at the end. To use a real node instead, set
 * EVM_RPC_URL (and EVM_ADDRESS if you want another account).
 *
 *   node --import tsx examples/evm-balance-anvil.ts
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { HttpTransportPool } from '../src/index.js';
import { createEvmClient, evmChainOf } from '../src/evm/index.js';
import { ANVIL_GENESIS_HASH } from '../src/testing/index.js';

/** anvil's first default account (10 000 ETH in a fresh anvil). */
const address = process.env.EVM_ADDRESS ?? '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const ANVIL = fileURLToPath(new URL('../node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil', import.meta.url));
const READY_TIMEOUT_MS = 10_000;

interface LocalNode {
  readonly url: string;
  stop(): Promise<void>;
}

/** Starts anvil on a free loopback port; resolves once it prints `Listening on <host:port>`. */
async function startAnvil(): Promise<LocalNode> {
  // --timestamp fixes the genesis block, so its hash is stable across runs.
  const child = spawn(ANVIL, ['--host', '127.0.0.1', '--port', '0', '--timestamp', '1700000000'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  };
  const url = await new Promise<string>((resolve, reject) => {
    let banner = '';
    let ready = false;
    const timer = setTimeout(() => reject(new Error(`anvil did not start within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
    // Keep reading stdout after the banner: anvil logs every call, and a full pipe would stall it.
    child.stdout.on('data', (chunk: Buffer) => {
      if (ready) return;
      banner += chunk.toString('utf8');
      const match = /Listening on (\S+)/.exec(banner);
      if (!match) return;
      ready = true;
      clearTimeout(timer);
      resolve(`http://${match[1]}`);
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`cannot start anvil (${ANVIL}); install it or set EVM_RPC_URL`, { cause: error }));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`anvil exited with code ${code} before listening`));
    });
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { url, stop };
}

const node: LocalNode = process.env.EVM_RPC_URL ? { url: process.env.EVM_RPC_URL, stop: async () => {} } : await startAnvil();
const pool = new HttpTransportPool({ endpoints: [{ id: 'evm-node', url: node.url }], chain: 'evm' });
try {
  const evm = createEvmClient(pool);
  const options = { timeoutMs: 5_000 };
  const [chainId, wei, genesis] = await Promise.all([
    evm.getChainId(options),
    evm.getBalance(address, 'latest', options),
    evm.getGenesisHash(options),
  ]);
  const eth = `${wei / 10n ** 18n}.${(wei % 10n ** 18n).toString().padStart(18, '0').replace(/0+$/, '') || '0'}`;
  const chainName = evmChainOf(genesis) ?? (genesis === ANVIL_GENESIS_HASH ? 'anvil --timestamp 1700000000' : 'unknown');
  console.log(`chain id: ${chainId}`);
  console.log(`balance of ${address}: ${wei} wei (${eth} ETH)`);
  console.log(`genesis hash: ${genesis} (${chainName})`);
} finally {
  await pool.close();
  await node.stop();
}
