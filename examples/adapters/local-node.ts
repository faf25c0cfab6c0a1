import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface Call {
  readonly id: unknown;
  readonly method: string;
}

/**
 * A tiny JSON-RPC "node" on 127.0.0.1 so the adapter examples run offline: it answers each
 * method with a canned result (raw JSON text, so u64 values stay exact) and -32601 otherwise.
 * In a real program the pool's endpoints are your providers' URLs.
 */
export async function startLocalNode(results: Readonly<Record<string, string>>): Promise<{ url: string; close(): Promise<void> }> {
  const answer = ({ id, method }: Call) => {
    const result = results[method];
    return result === undefined
      ? JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } })
      : `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`;
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Call | Call[];
      // A JSON-RPC batch (the adapters send their host library's batches as one) gets an array.
      const body = Array.isArray(parsed) ? `[${parsed.map(answer).join(',')}]` : answer(parsed);
      res.writeHead(200, { 'content-type': 'application/json', connection: 'close' }).end(body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Canned answers of a Solana node (the balance is above 2^53 on purpose). */
export const SOLANA_RESULTS = {
  getBalance: '{"context":{"slot":341197053},"value":18446744073709551615}',
  getGenesisHash: '"5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d"',
  getVersion: '{"solana-core":"2.2.1","feature-set":3294202862}',
  getHealth: '"ok"',
};

/** Canned answers of an EVM node (anvil's chain id and default account balance). */
export const EVM_RESULTS = {
  eth_chainId: '"0x7a69"',
  eth_blockNumber: '"0x0"',
  eth_getBalance: '"0x21e19e0c9bab2400000"',
};
