/**
 * A loopback JSON-RPC server for benchmarks (a typical getBalance body; the cost of exact
 * big integers is measured separately in json.bench.ts), run in its own process so client and server
 * do not share an event loop. Answers any method with a small result (echoing the id).
 * Prints its port on stdout; exits when stdin closes.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    const idMatch = /"id":(\d+)/.exec(body);
    const id = idMatch ? idMatch[1] : 'null';
    const text = `{"jsonrpc":"2.0","id":${id},"result":{"context":{"slot":312345678,"apiVersion":"2.2.1"},"value":1500000000}}`;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
process.stdin.on('close', () => server.close(() => process.exit(0)));
process.stdin.resume();
