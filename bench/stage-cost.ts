/**
 * Per-stage cost on the everyday path: client CPU per call of the same 4-endpoint pool with
 * one optional part turned off at a time, against raw undici, in one process, alternating
 * rounds (median). Every call has its own params (coalescing cannot help). Run:
 *   npx tsc -p tsconfig.bench.json && node .bench-build/bench/stage-cost.js [seconds per round] [rounds]
 */
import { Pool } from 'undici';
import { HttpTransportPool, type HttpTransportPoolOptions } from '../src/index.js';
import { startFaultServer } from './fault-control.js';

const [secondsArg = '1.5', roundsArg = '3'] = process.argv.slice(2);
const durationMs = Number(secondsArg) * 1000;
const rounds = Number(roundsArg);
const IN_FLIGHT = 64;

const server = await startFaultServer(4);
let distinct = 0;
const nextAddress = () => `0x${(distinct++ % 1_000_000).toString(16).padStart(40, '0')}`;
const base: HttpTransportPoolOptions = {
  endpoints: server.urls.map((url, i) => ({ id: `e${i}`, url, operator: `op${i}`, maxConcurrentRequests: 64 })),
  chain: 'evm',
};
const variants: [string, Partial<HttpTransportPoolOptions>][] = [
  ['defaults', {}],
  ['hedge: false', { hedge: false }],
  ['coalesce: false', { coalesce: false }],
  ['balance: false', { balance: false }],
  ['health: false', { health: false }],
  ['reputation: false', { reputation: false }],
  ['every optional part off', { hedge: false, coalesce: false, balance: false, health: false, reputation: false }],
];
const raw = new Pool(server.urls[0]!, { connections: 64 });
const rawCall = async () => {
  const body = `{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["${nextAddress()}","latest"]}`;
  const response = await raw.request({ path: '/', method: 'POST', headers: { 'content-type': 'application/json' }, body });
  await response.body.text();
};
const pools = variants.map(([name, extra]) => {
  const pool = new HttpTransportPool({ ...base, ...extra });
  return { name, call: () => pool.request('eth_getBalance', [nextAddress(), 'latest']), pool };
});
const clients = [{ name: 'raw undici Pool.request', call: rawCall }, ...pools];

async function measure(call: () => Promise<unknown>): Promise<{ callsPerSecond: number; cpuUsPerCall: number }> {
  let calls = 0;
  const run = async (ms: number) => {
    const end = performance.now() + ms;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (performance.now() < end) {
          await call();
          calls++;
        }
      }),
    );
  };
  await run(200);
  calls = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await run(durationMs);
  const elapsed = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { callsPerSecond: (calls / elapsed) * 1000, cpuUsPerCall: (cpu.user + cpu.system) / calls };
}

const results = new Map<string, { rate: number[]; cpu: number[] }>(clients.map((c) => [c.name, { rate: [], cpu: [] }]));
for (let round = 0; round < rounds; round++) {
  for (const client of clients) {
    const { callsPerSecond, cpuUsPerCall } = await measure(client.call);
    results.get(client.name)!.rate.push(callsPerSecond);
    results.get(client.name)!.cpu.push(cpuUsPerCall);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const rawRate = median(results.get('raw undici Pool.request')!.rate);
const defaultsCpu = median(results.get('defaults')!.cpu);
console.log('| client (4 endpoints, distinct eth_getBalance, 64 in flight) | calls/s | ÷ raw | client CPU µs/call | vs defaults µs/call |');
console.log('| --- | --- | --- | --- | --- |');
for (const client of clients) {
  const r = results.get(client.name)!;
  const cpu = median(r.cpu);
  console.log(`| ${client.name} | ${Math.round(median(r.rate))} | ${(median(r.rate) / rawRate).toFixed(2)} | ${cpu.toFixed(1)} | ${client.name.startsWith('raw') ? '—' : (cpu - defaultsCpu).toFixed(1)} |`);
}
await Promise.all(pools.map(({ pool }) => pool.close()));
await raw.close();
await server.stop();
