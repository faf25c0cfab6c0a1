/** How a request over a subscription socket can fail (see connection.ts). */

/** A JSON-RPC error answer to a request on the socket. */
export class SocketRpcError extends Error {
  constructor(
    readonly rpcCode: number,
    readonly rpcMessage: string,
  ) {
    super('rpc error');
  }
}

/** The socket died or timed out before an answer came. */
export class SocketGoneError extends Error {}
