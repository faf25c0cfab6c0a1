/**
 * A WebSocket node for the subscription benchmark, run as its own process so it never
 * competes with the client on the event loop: `slotSubscribe` answers an id, then sends
 * `count` slot notifications as fast as the socket takes them (frames built up front);
 * any other `*Subscribe` / `*Unsubscribe` gets an id / `true`. Prints its port on stdout.
 */
import { WebSocketServer, type WebSocket } from 'ws';

const count = Number(process.argv[2] ?? 100_000);
const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
let nextId = 0;

function flood(socket: WebSocket, id: number): void {
  let slot = 1_000;
  const end = slot + count;
  const batch = () => {
    for (let i = 0; i < 2_000 && slot < end; i++) {
      slot++;
      socket.send(`{"jsonrpc":"2.0","method":"slotNotification","params":{"result":{"parent":${slot - 1},"root":${slot - 32},"slot":${slot}},"subscription":${id}}}`);
    }
    if (slot < end && socket.readyState === 1) {
      if (socket.bufferedAmount > 4 * 1024 * 1024) setTimeout(batch, 1);
      else setImmediate(batch);
    }
  };
  batch();
}

server.on('connection', (socket) => {
  socket.on('message', (data) => {
    const call = JSON.parse(data.toString()) as { id: number; method: string };
    if (call.method.endsWith('Unsubscribe')) return socket.send(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: true }));
    const id = ++nextId;
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: id }));
    if (call.method === 'slotSubscribe') flood(socket, id);
  });
});
server.on('listening', () => {
  const address = server.address();
  process.stdout.write(`${typeof address === 'object' && address !== null ? address.port : 0}\n`);
});
