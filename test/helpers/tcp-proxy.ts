import net from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a real node (anvil): several endpoints of one chain,
 * and a node that dies and comes back — `kill()` resets every connection and refuses new
 * ones (as a crashed process does), `revive()` listens again on the same port.
 */
export interface TcpProxy {
  /** `http://127.0.0.1:<port>` (WebSocket on the same port, as the node behind it). */
  readonly url: string;
  kill(): Promise<void>;
  revive(): Promise<void>;
  /** Kills it for good. Idempotent. */
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  };
  const makeServer = () =>
    net.createServer((client) => {
      const upstream = net.connect(targetPort, '127.0.0.1');
      track(client);
      track(upstream);
      client.pipe(upstream);
      upstream.pipe(client);
      client.once('close', () => upstream.destroy());
      upstream.once('close', () => client.destroy());
    });
  const listenOn = async (port: number) => {
    const next = makeServer();
    await new Promise<void>((resolve, reject) => {
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => resolve());
    });
    return next;
  };
  let server: net.Server | undefined = await listenOn(0);
  const port = (server.address() as net.AddressInfo).port;
  const kill = async () => {
    const current = server;
    server = undefined;
    for (const socket of sockets) socket.resetAndDestroy();
    if (current !== undefined) await new Promise<void>((resolve) => current.close(() => resolve()));
  };
  return {
    url: `http://127.0.0.1:${port}`,
    kill,
    revive: async () => {
      server ??= await listenOn(port);
    },
    close: kill,
  };
}
