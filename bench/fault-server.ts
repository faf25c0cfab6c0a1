/**
 * The benchmark JSON-RPC server with per-port faults, run in its own process (started by
 * `startFaultServer()` in fault-control.ts). One process serves several loopback ports;
 * each answers Solana (getSlot, getBalance, getGenesisHash, sendTransaction, …) and EVM
 * (eth_blockNumber, eth_getBalance, eth_chainId, eth_sendRawTransaction, eth_getTransactionByHash, …) calls, with the
 * fault its configuration names. Every send it processes is recorded, so the harness can
 * count duplicate sends as the servers saw them.
 *
 * argv[2]: number of ports. Prints `{"control":port,"ports":[…]}` on stdout; exits when
 * stdin closes. Control (HTTP, its own port): POST /configure (FaultServerConfig; resets
 * counters and drops every connection), POST /reset-stats, GET /stats, POST /down/<i>
 * (port closed, connections dropped), POST /up/<i>.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { keccak256 } from 'ethers';
import { solanaSignatureFromSendParams } from '../src/jsonrpc/transaction-id.js';
import * as model from './fault-model.js';

interface PortState {
  readonly server: Server;
  readonly sockets: Set<Socket>;
  port: number;
  fault: model.PortFault;
  down: boolean;
  received: number;
  /** JSON-RPC calls received (a batch counts each item): what a provider billing per call counts. */
  items: number;
  rateLimited: number;
  resets: number;
  windowStartMs: number;
  inWindow: number;
  counter: number;
}

type Answer = { readonly result: unknown } | { readonly error: { readonly code: number; readonly message: string } };

let baseDelayMs = 0;
const ledger = new Map<string, number>();
const ports: PortState[] = [];

const hex = (value: number | bigint) => `0x${value.toString(16)}`;
const invalidParams: Answer = { error: { code: -32602, message: 'Invalid params' } };

function record(key: string): void {
  ledger.set(key, (ledger.get(key) ?? 0) + 1);
}

function answer(method: string, params: readonly unknown[], wrong: boolean, lag = 0): Answer {
  switch (method) {
    case 'eth_blockNumber':
      return { result: hex((wrong ? model.WRONG_BLOCK_NUMBER : model.BLOCK_NUMBER) - lag) };
    case 'eth_chainId':
      return { result: hex(wrong ? model.WRONG_EVM_CHAIN_ID : model.EVM_CHAIN_ID) };
    case 'net_version':
      return { result: String(wrong ? model.WRONG_EVM_CHAIN_ID : model.EVM_CHAIN_ID) };
    case 'eth_getBalance':
      return typeof params[0] === 'string' ? { result: hex(model.evmBalanceOf(params[0], wrong, lag > 0)) } : invalidParams;
    case 'eth_sendRawTransaction': {
      if (typeof params[0] !== 'string') return invalidParams;
      if (wrong) return { error: { code: -32000, message: `invalid chain id for signer: have ${model.EVM_CHAIN_ID} want ${model.WRONG_EVM_CHAIN_ID}` } };
      let hash: string;
      try {
        hash = keccak256(params[0]);
      } catch {
        return invalidParams;
      }
      record(`evm:${hash}`);
      return { result: hash };
    }
    case 'eth_getTransactionByHash': {
      // A transaction any of our nodes processed is known to the network (on the right chain).
      const hash = params[0];
      if (typeof hash !== 'string') return invalidParams;
      return { result: !wrong && ledger.has(`evm:${hash}`) ? { hash, blockHash: null, blockNumber: null } : null };
    }
    case 'getSignatureStatuses': {
      const signatures = params[0];
      if (!Array.isArray(signatures)) return invalidParams;
      const status = { slot: model.SLOT, confirmations: 0, err: null, confirmationStatus: 'processed' };
      const value = signatures.map((signature) => (!wrong && ledger.has(`sol:${String(signature)}`) ? status : null));
      return { result: { context: { slot: wrong ? model.WRONG_SLOT : model.SLOT }, value } };
    }
    case 'getSlot':
      return { result: (wrong ? model.WRONG_SLOT : model.SLOT) - lag };
    case 'getGenesisHash':
      return { result: wrong ? model.SOLANA_DEVNET_GENESIS : model.SOLANA_MAINNET_GENESIS };
    case 'getHealth':
      return { result: 'ok' };
    case 'getBalance':
      return typeof params[0] === 'string'
        ? { result: { context: { slot: wrong ? model.WRONG_SLOT : model.SLOT }, value: model.solanaBalanceOf(params[0], wrong) } }
        : invalidParams;
    case 'sendTransaction': {
      const signature = solanaSignatureFromSendParams(params);
      if (signature === undefined) return invalidParams;
      if (wrong) return { error: { code: -32002, message: 'Transaction simulation failed: Blockhash not found' } };
      record(`sol:${signature}`);
      return { result: signature };
    }
    default:
      return { error: { code: -32601, message: 'Method not found' } };
  }
}

interface Call {
  readonly id?: unknown;
  readonly method?: unknown;
  readonly params?: unknown;
}

function envelope(call: Call, reply: Answer): string {
  const id = JSON.stringify(call.id ?? null);
  return 'result' in reply
    ? `{"jsonrpc":"2.0","id":${id},"result":${JSON.stringify(reply.result)}}`
    : `{"jsonrpc":"2.0","id":${id},"error":${JSON.stringify(reply.error)}}`;
}

function handle(state: PortState, req: IncomingMessage, res: ServerResponse, body: string): void {
  state.received++;
  const fault = state.fault;
  if (fault.type === 'rate-limit') {
    const now = performance.now();
    if (now - state.windowStartMs >= 1_000) {
      state.windowStartMs = now;
      state.inWindow = 0;
    }
    if (++state.inWindow > fault.requestsPerSecond) {
      state.rateLimited++;
      const text = '{"jsonrpc":"2.0","id":null,"error":{"code":429,"message":"Too many requests"}}';
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(fault.retryAfterSeconds), 'content-length': text.length });
      res.end(text);
      return;
    }
  }
  let text: string;
  try {
    const parsed = JSON.parse(body) as Call | Call[];
    const wrong = fault.type === 'wrong-chain';
    const lag = fault.type === 'lag' ? fault.blocks : 0;
    const one = (call: Call) =>
      envelope(call, answer(typeof call.method === 'string' ? call.method : '', Array.isArray(call.params) ? call.params : [], wrong, lag));
    state.items += Array.isArray(parsed) ? parsed.length : 1;
    text = Array.isArray(parsed) ? `[${parsed.map(one).join(',')}]` : one(parsed);
  } catch {
    text = '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}';
  }
  if (fault.type === 'reset' && ++state.counter % Math.max(1, Math.round(1 / fault.ratio)) === 0) {
    // Read and processed (a send is already recorded); the answer is lost.
    state.resets++;
    req.socket.resetAndDestroy();
    return;
  }
  const send = () => {
    if (res.destroyed) return;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const delayMs = fault.type === 'slow' ? baseDelayMs * fault.factor : baseDelayMs;
  if (delayMs > 0) setTimeout(send, delayMs);
  else send();
}

function createPort(): PortState {
  const sockets = new Set<Socket>();
  const server = createServer({ keepAliveTimeout: 60_000 });
  const state: PortState = { server, sockets, port: 0, fault: { type: 'normal' }, down: false, received: 0, items: 0, rateLimited: 0, resets: 0, windowStartMs: 0, inWindow: 0, counter: 0 };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(state, req, res, chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8')));
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return state;
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function dropConnections(state: PortState): void {
  for (const socket of state.sockets) socket.destroy();
}

async function setDown(state: PortState, down: boolean): Promise<void> {
  if (state.down === down) return;
  state.down = down;
  if (down) {
    state.server.close();
    dropConnections(state);
  } else {
    await listen(state.server, state.port);
  }
}

function resetStats(): void {
  ledger.clear();
  for (const state of ports) Object.assign(state, { received: 0, items: 0, rateLimited: 0, resets: 0, windowStartMs: 0, inWindow: 0, counter: 0 });
}

function stats(): model.FaultServerStats {
  const cpu = process.cpuUsage();
  let sendsProcessed = 0;
  let duplicatedPayloads = 0;
  let duplicateSends = 0;
  for (const count of ledger.values()) {
    sendsProcessed += count;
    if (count > 1) duplicatedPayloads++;
    duplicateSends += count - 1;
  }
  return {
    ports: ports.map(({ received, items, rateLimited, resets }) => ({ received, items, rateLimited, resets })),
    sendsProcessed,
    duplicatedPayloads,
    duplicateSends,
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
}

async function control(method: string, url: string, body: string): Promise<unknown> {
  const [, op, index] = url.split('/');
  if (method === 'GET' && op === 'stats') return stats();
  if (method === 'POST' && op === 'reset-stats') return resetStats();
  if (method === 'POST' && (op === 'down' || op === 'up')) return setDown(ports[Number(index)]!, op === 'down');
  if (method === 'POST' && op === 'configure') {
    const config = JSON.parse(body) as model.FaultServerConfig;
    baseDelayMs = config.baseDelayMs;
    for (const [i, state] of ports.entries()) {
      await setDown(state, false);
      state.fault = config.ports[i] ?? { type: 'normal' };
      dropConnections(state);
    }
    return resetStats();
  }
  throw new Error(`unknown control request ${method} ${url}`);
}

const controlServer = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    control(req.method ?? 'GET', req.url ?? '/', Buffer.concat(chunks).toString('utf8')).then(
      (value) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value ?? { ok: true })),
      (error: unknown) => res.writeHead(400).end(String(error)),
    );
  });
});

const count = Number(process.argv[2] ?? 4);
for (let i = 0; i < count; i++) ports.push(createPort());
for (const state of ports) state.port = await listen(state.server, 0);
const controlPort = await listen(controlServer, 0);
process.stdout.write(`${JSON.stringify({ control: controlPort, ports: ports.map((p) => p.port) })}\n`);
process.stdin.on('close', () => {
  for (const state of ports) {
    state.server.close();
    dropConnections(state);
  }
  controlServer.close();
  process.exit(0);
});
process.stdin.resume();
