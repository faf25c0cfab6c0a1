/**
 * A focused run for profiling one client of the peer benchmark:
 *   npx tsc -p tsconfig.bench.json
 *   node --cpu-prof --cpu-prof-dir=.bench-prof .bench-build/bench/profile-client.js "sturdy-rpc, 1 endpoint" 64 5
 * Arguments: client name (as in the peers table; default raw undici), calls in flight
 * (default 64), seconds (default 5). Prints calls/s; the profile is written at exit.
 */
import { startFaultServer } from './fault-control.js';
import { createPeerClients, RAW } from './peer-clients.js';

const [name = RAW, inFlightArg = '64', secondsArg = '5'] = process.argv.slice(2);
const inFlight = Number(inFlightArg);
const durationMs = Number(secondsArg) * 1000;

const server = await startFaultServer(4);
const { clients, close } = createPeerClients(server.urls);
try {
  const client = clients.find((c) => c.name === name);
  if (!client) throw new Error(`unknown client '${name}'; one of: ${clients.map((c) => c.name).join(' | ')}`);
  let calls = 0;
  const run = async (ms: number) => {
    const end = performance.now() + ms;
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (performance.now() < end) {
          await client.call();
          calls++;
        }
      }),
    );
  };
  await run(500);
  calls = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await run(durationMs);
  const elapsed = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const cpuPerCall = (cpu.user + cpu.system) / calls;
  console.log(`${name}: ${Math.round((calls / elapsed) * 1000)} calls/s at ${inFlight} in flight, client CPU ${cpuPerCall.toFixed(1)} µs/call`);
} finally {
  await close();
  await server.stop();
}
