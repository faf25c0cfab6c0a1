/**
 * Intrinsic integrity checks (issue 28 §1): the in-process A/B of answer classification with
 * and without the call's question, on real-shaped bodies of the checked methods, and the cost
 * on an unchecked everyday read (one map look-up). The end-to-end A/B of the everyday path is
 * the `everyday` section's `integrity off` row.
 */
import { classifyOutcome } from '../src/http/classify.js';
import type { RawOutcome } from '../src/http/executor.js';
import type { ClassifyContext } from '../src/http/outcome.js';
import { integrityAskOf } from '../src/integrity/integrity-ask.js';
import { formatNs, table, type MicroResult } from './util.js';

const hash = (i: number) => `0x${i.toString(16).padStart(64, '0')}`;
const ADDRESS = '0x00000000000000000000000000000000000000aa';
const log = (i: number) => ({ address: ADDRESS, blockNumber: '0x10', blockHash: hash(16), logIndex: `0x${i.toString(16)}`, transactionHash: hash(1000 + i), topics: [hash(7), hash(8)], data: `0x${'00'.repeat(64)}`, removed: false });

interface Case {
  readonly name: string;
  readonly method: string;
  readonly params: readonly unknown[];
  readonly result: unknown;
}

const CASES: readonly Case[] = [
  { name: 'eth_getBalance (unchecked)', method: 'eth_getBalance', params: [ADDRESS, 'latest'], result: '0xde0b6b3a7640000' },
  { name: 'eth_getTransactionReceipt', method: 'eth_getTransactionReceipt', params: [hash(5)], result: { transactionHash: hash(5), blockNumber: '0x10', status: '0x1', logs: [log(0), log(1)] } },
  { name: 'eth_getBlockByNumber', method: 'eth_getBlockByNumber', params: ['0x10', false], result: { number: '0x10', hash: hash(16), transactions: Array.from({ length: 150 }, (_, i) => hash(i)) } },
  { name: 'eth_getLogs, 100 logs', method: 'eth_getLogs', params: [{ fromBlock: '0x10', toBlock: '0x20', address: ADDRESS, topics: [hash(7)] }], result: Array.from({ length: 100 }, (_, i) => log(i)) },
  { name: 'getBalance + minContextSlot', method: 'getBalance', params: ['83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a', { minContextSlot: 300 }], result: { context: { slot: 312345678 }, value: 1500000000 } },
];

const ctxOf = (method: string, integrity: ClassifyContext['integrity']): ClassifyContext => ({ method, id: 7, abortReason: undefined, wallNowMs: 0, integrity, chainVerified: true });

/** Best ns/op of `op` over `rounds` runs of `iterations`, the A and B runs interleaved so a busy spell hits both alike. */
function interleaved(ops: readonly (() => unknown)[], iterations: number, rounds = 15): number[] {
  const best = ops.map(() => Number.POSITIVE_INFINITY);
  for (const op of ops) for (let i = 0; i < Math.min(iterations, 5_000); i++) op();
  for (let r = 0; r < rounds; r++) {
    ops.forEach((op, k) => {
      const start = process.hrtime.bigint();
      for (let i = 0; i < iterations; i++) op();
      best[k] = Math.min(best[k]!, Number(process.hrtime.bigint() - start) / iterations);
    });
  }
  return best;
}

export async function benchIntegrity(): Promise<{ results: MicroResult[]; markdown: string }> {
  const results: MicroResult[] = [];
  const rows: (string | number)[][] = [];
  for (const c of CASES) {
    const raw: RawOutcome = { type: 'response', status: 200, headers: {}, body: JSON.stringify({ jsonrpc: '2.0', id: 7, result: c.result }) };
    const iterations = raw.body.length > 5_000 ? 500 : 10_000;
    const asked = integrityAskOf(c.method, c.params);
    const [off, on, alone] = interleaved(
      [
        () => classifyOutcome(raw, ctxOf(c.method, undefined)),
        // On: the call's question is read once per call (at its entry), then checked on its answer.
        () => classifyOutcome(raw, ctxOf(c.method, integrityAskOf(c.method, c.params))),
        // The checks alone on the parsed answer: what integrity adds, free of the parse's noise.
        () => integrityAskOf(c.method, c.params)?.verify(c.result, true),
      ],
      iterations,
    ) as [number, number, number];
    results.push({ name: `classify, integrity off: ${c.name}`, nsPerOp: off, bytesPerOp: undefined }, { name: `classify, integrity on: ${c.name}`, nsPerOp: on, bytesPerOp: undefined }, { name: `ask + check: ${c.name}`, nsPerOp: alone, bytesPerOp: undefined });
    rows.push([c.name, asked === undefined ? 'none' : 'checked', formatNs(off), formatNs(on), formatNs(alone), `${((alone / off) * 100).toFixed(1)} %`]);
  }
  return { results, markdown: table(['answer', 'question', 'classify (integrity off)', 'classify (on)', 'ask + check alone', 'alone ÷ classify'], rows) };
}
