/** Exact-integer JSON parsing vs plain `JSON.parse` on real-shaped bodies. */
import { parseJsonExact } from '../src/jsonrpc/exact-json.js';
import { formatNs, micro, table, type MicroResult } from './util.js';

const small = '{"jsonrpc":"2.0","id":7,"result":{"context":{"apiVersion":"2.2.1","slot":312345678},"value":1500000000}}';
const big = '{"jsonrpc":"2.0","id":7,"result":{"context":{"apiVersion":"2.2.1","slot":312345678},"value":18446744073709551615}}';
const accounts = JSON.stringify({
  jsonrpc: '2.0',
  id: 9,
  result: Array.from({ length: 200 }, (_, i) => ({
    pubkey: `So1${'1'.repeat(40)}${i}`.slice(0, 44),
    account: { lamports: 2039280 + i, owner: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', data: ['AQAAAA==', 'base64'], executable: false, rentEpoch: 361 },
  })),
});

export async function benchJson(): Promise<{ results: MicroResult[]; markdown: string }> {
  const cases: [string, string][] = [
    ['getBalance body, no big integer', small],
    ['getBalance body, u64 max', big],
    ['200-account body, no big integer', accounts],
  ];
  const results: MicroResult[] = [];
  const rows: (string | number)[][] = [];
  for (const [name, text] of cases) {
    // ~0.2 ms per parse of the 200-account body: 1 000 iterations keep each round near 0.3 s.
    const iterations = text.length > 10_000 ? 1_000 : 20_000;
    const plain = await micro(`JSON.parse: ${name}`, () => JSON.parse(text), iterations);
    const exact = await micro(`parseJsonExact: ${name}`, () => parseJsonExact(text), iterations);
    results.push(plain, exact);
    rows.push([name, formatNs(plain.nsPerOp), formatNs(exact.nsPerOp), (exact.nsPerOp / plain.nsPerOp).toFixed(2)]);
  }
  return { results, markdown: table(['body', 'JSON.parse', 'parseJsonExact', 'ratio'], rows) };
}
