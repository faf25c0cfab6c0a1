import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Clock } from '../clock.js';
import { solanaSignatureFromSendParams } from '../jsonrpc/transaction-id.js';
import { SOLANA_GENESIS_HASHES } from '../solana/clusters.js';
import { attachFixtureWebSocket, type FixtureWebSocket } from '../testing/fixture-websocket.js';

/** How one demo node misbehaves. */
export type DemoFault =
  | { readonly type: 'healthy' }
  | { readonly type: 'rate-limit'; readonly requestsPerSecond: number; readonly retryAfterSeconds: number }
  | { readonly type: 'reset'; readonly ratio: number }
  | { readonly type: 'slow'; readonly delayMs: number }
  | { readonly type: 'wrong-chain' }
  /** Healthy, but its slots (and the state it serves) lag by `lagSlots` while that is above 0. */
  | { readonly type: 'lagging' };

export interface DemoNode {
  readonly name: string;
  readonly fault: DemoFault;
  readonly url: string;
  /** Requests received (whatever the answer). */
  received: number;
  /** 429 answers sent. */
  rateLimited: number;
  /** Connections reset after the request was read (and processed). */
  resets: number;
  /** How far behind the chain this node answers now, in slots (the demo moves it for a `lagging` node). */
  lagSlots: number;
  /** `ws://…` on the same port when the node speaks WebSocket (a slot ticker every 400 ms, in step with `getSlot`). */
  readonly wsUrl: string | undefined;
  /** The WebSocket side's faults (`setSilent`, `drop`); undefined without WebSocket. */
  readonly ws: FixtureWebSocket | undefined;
  close(): Promise<void>;
}

/** Every sendTransaction signature that reached any demo node, with how many times. */
export type SendLedger = Map<string, number>;

const BIG_BALANCE = '18446744073709551615';

function answer(method: string, params: unknown[], fault: DemoFault, slot: number): unknown {
  switch (method) {
    case 'getHealth':
      return 'ok';
    case 'getVersion':
      return { 'solana-core': '2.2.1', 'feature-set': 3294202862 };
    case 'getGenesisHash':
      return fault.type === 'wrong-chain' ? SOLANA_GENESIS_HASHES.devnet : SOLANA_GENESIS_HASHES['mainnet-beta'];
    case 'getSlot':
      return slot;
    case 'getBalance':
      return { context: { slot }, value: BIG_BALANCE };
    case 'sendTransaction':
      return solanaSignatureFromSendParams(params) ?? null;
    default:
      return undefined;
  }
}

const SLOT_MS = 400;
const slotAt = (nowMs: number) => 300_000_000 + Math.floor(nowMs / SLOT_MS);

/**
 * Starts one fake Solana node on 127.0.0.1 with the given fault. Sends are recorded in
 * `ledger` when the node processes them — including those whose connection it then
 * resets — so the demo can count duplicate sends as a server would. With `websocket`, the
 * fixture server's WebSocket side answers subscriptions on the same port (needs `ws`; without
 * it the node stays HTTP-only).
 */
export async function startDemoNode(name: string, fault: DemoFault, ledger: SendLedger, clock: Clock, websocket = false): Promise<DemoNode> {
  const nowMs = () => clock.now();
  const sockets = new Set<Socket>();
  let windowStart = 0;
  let inWindow = 0;
  let resetCounter = 0;
  const node: DemoNode = { name, fault, url: '', received: 0, rateLimited: 0, resets: 0, lagSlots: 0, wsUrl: undefined, ws: undefined, close: () => Promise.resolve() };

  const handle = (req: IncomingMessage, res: ServerResponse, body: string) => {
    node.received++;
    let request: { id?: unknown; method?: string; params?: unknown[] };
    try {
      request = JSON.parse(body) as typeof request;
    } catch {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
      return;
    }
    if (fault.type === 'rate-limit') {
      const now = nowMs();
      if (now - windowStart >= 1000) {
        windowStart = now;
        inWindow = 0;
      }
      if (++inWindow > fault.requestsPerSecond) {
        node.rateLimited++;
        res.writeHead(429, { 'retry-after': String(fault.retryAfterSeconds), 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: request.id, error: { code: 429, message: 'Too many requests' } }));
        return;
      }
    }
    const method = request.method ?? '';
    const params = Array.isArray(request.params) ? request.params : [];
    if (method === 'sendTransaction') {
      const signature = solanaSignatureFromSendParams(params) ?? 'malformed';
      ledger.set(signature, (ledger.get(signature) ?? 0) + 1);
    }
    if (fault.type === 'reset' && ++resetCounter % Math.round(1 / fault.ratio) === 0) {
      // The request was read and processed; the answer is lost: the client cannot know.
      node.resets++;
      req.socket.resetAndDestroy();
      return;
    }
    const result = answer(method, params, fault, slotAt(nowMs()) - node.lagSlots);
    const payload =
      result === undefined
        ? { jsonrpc: '2.0', id: request.id, error: { code: -32601, message: 'Method not found' } }
        : { jsonrpc: '2.0', id: request.id, result };
    const text = JSON.stringify(payload).replace(`"${BIG_BALANCE}"`, BIG_BALANCE);
    const send = () => res.writeHead(200, { 'content-type': 'application/json' }).end(text);
    if (fault.type === 'slow') setTimeout(send, fault.delayMs);
    else send();
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
  const ws = websocket
    ? await attachFixtureWebSocket(server, { slotIntervalMs: SLOT_MS, startSlot: slotAt(nowMs()) }, { clock, log: () => undefined }).catch(() => undefined)
    : undefined;
  return Object.assign(node, {
    url: `http://127.0.0.1:${port}/`,
    wsUrl: ws === undefined ? undefined : `ws://127.0.0.1:${port}/`,
    ws,
    close: () =>
      new Promise<void>((done) => {
        ws?.close();
        for (const socket of sockets) socket.destroy();
        server.close(() => done());
      }),
  });
}
