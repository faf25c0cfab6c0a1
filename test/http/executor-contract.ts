import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { HttpExecutor } from '../../src/http/executor.js';
import { call, closedAfterEach, expectError, startHttp, startRaw, startStallingBody, whenClosed } from '../helpers/http-server.js';
import { refusedPort } from '../helpers/loopback.js';

export type ContentEncoding = 'gzip' | 'deflate' | 'br';

/** Where the executors legitimately differ; the contract asserts the rest identically. */
export interface ExecutorCapabilities<O> {
  /** Content encodings the executor decodes. */
  readonly decodes: readonly ContentEncoding[];
  /** Request headers the executor always sends (besides `content-type`), asserted on the first test. */
  readonly sendsHeaders?: Readonly<Record<string, string>>;
  /** The `code` reported when the server resets / closes (FIN) after reading the request; undefined: not asserted. */
  readonly codes: { readonly resetAfterRead?: string; readonly closeAfterRead?: string };
  /**
   * Options for an executor, and a promise that resolves once that executor has the response
   * headers of its next call (and before the body is read in full).
   */
  observeHeaders(): { readonly options?: O; readonly arrived: Promise<void> };
}

const COMPRESS: Record<ContentEncoding, (b: Buffer) => Buffer> = {
  gzip: (b) => zlib.gzipSync(b),
  deflate: (b) => zlib.deflateSync(b),
  br: (b) => zlib.brotliCompressSync(b),
};

/**
 * Registers the tests every {@link HttpExecutor} must pass, against real loopback servers:
 * what is sent, how failures are classified (connect / socket / aborted / too-large / decode)
 * and whether they were dispatched, and response decoding within `maxResponseBytes`.
 */
export function describeExecutorContract<O>(name: string, create: (options?: O) => HttpExecutor, capabilities: ExecutorCapabilities<O>): void {
  describe(`${name}: the executor contract`, () => {
    const executor = closedAfterEach(create);

    it('posts the body as JSON to the target path and query with configured headers, and returns the response', async () => {
      const { seen, url } = await startHttp((_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json', 'X-Served-By': 'node-1' });
        res.end('{"jsonrpc":"2.0","id":1,"result":42}');
      });
      const target = { endpointId: 'e1', url: `${url}/v2/secret-key?api-key=abc`, headers: { 'X-Api-Key': 'k1' }, maxConnections: 2 };
      const request = call(target.url, { target });

      const outcome = await executor().execute(request);

      expect(outcome).toEqual({
        type: 'response',
        status: 200,
        headers: expect.objectContaining({ 'content-type': 'application/json', 'x-served-by': 'node-1' }),
        body: '{"jsonrpc":"2.0","id":1,"result":42}',
      });
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({
        method: 'POST',
        url: '/v2/secret-key?api-key=abc',
        body: request.body,
        headers: expect.objectContaining({ 'content-type': 'application/json', ...capabilities.sendsHeaders, 'x-api-key': 'k1' }),
      });
    });

    it('sends URL credentials as a Basic authorization header, not in the request line', async () => {
      const { seen, url } = await startHttp((_req, res) => res.end('{}'));
      const withCredentials = url.replace('http://', 'http://alice:p%40ss@');

      expect(await executor().execute(call(`${withCredentials}/rpc`))).toMatchObject({ type: 'response' });

      expect(seen[0]?.url).toBe('/rpc');
      expect(seen[0]?.headers.authorization).toBe(`Basic ${Buffer.from('alice:p@ss').toString('base64')}`);
    });

    it('reports a refused connection as connect and not dispatched', async () => {
      const port = await refusedPort();

      const outcome = expectError(await executor().execute(call(`http://127.0.0.1:${port}/`)));

      expect(outcome).toMatchObject({ kind: 'connect', dispatched: false, code: 'ECONNREFUSED' });
    });

    it('reports a reset after the server read the request as socket and dispatched, and does not resend it', async () => {
      const raw = await startRaw((socket) => socket.resetAndDestroy());

      const outcome = expectError(await executor().execute(call(raw.url)));

      expect(outcome).toMatchObject({ kind: 'socket', dispatched: true });
      if (capabilities.codes.resetAfterRead !== undefined) expect(outcome.code).toBe(capabilities.codes.resetAfterRead);
      expect(outcome.status).toBeUndefined();
      expect(raw.requests()).toBe(1);
    });

    it('reports a close (FIN) after the server read the request as socket and dispatched', async () => {
      const raw = await startRaw((socket) => socket.end());

      const outcome = expectError(await executor().execute(call(raw.url)));

      expect(outcome).toMatchObject({ kind: 'socket', dispatched: true });
      if (capabilities.codes.closeAfterRead !== undefined) expect(outcome.code).toBe(capabilities.codes.closeAfterRead);
      expect(raw.requests()).toBe(1);
    });

    it('aborting while the body stalls reports aborted and dispatched with the status, and closes the connection', async () => {
      let serverSocketClosed: Promise<void> = Promise.resolve();
      const { url } = await startHttp((req, res) => {
        serverSocketClosed = whenClosed(req.socket);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"jsonrpc":"2.0",');
      });
      const controller = new AbortController();
      const { options, arrived } = capabilities.observeHeaders();

      const pending = executor(options).execute(call(url, { signal: controller.signal }));
      await arrived;
      controller.abort();
      const outcome = expectError(await pending);

      expect(outcome).toMatchObject({ kind: 'aborted', dispatched: true, status: 200 });
      await serverSocketClosed;
    });

    it('aborting before response headers reports aborted and dispatched, and closes the connection', async () => {
      let received!: () => void;
      const requestReceived = new Promise<void>((resolve) => (received = resolve));
      let serverSocketClosed: Promise<void> = Promise.resolve();
      const { url } = await startHttp((req) => {
        serverSocketClosed = whenClosed(req.socket);
        received();
      });
      const controller = new AbortController();

      const pending = executor().execute(call(url, { signal: controller.signal }));
      await requestReceived;
      controller.abort();
      const outcome = expectError(await pending);

      expect(outcome).toMatchObject({ kind: 'aborted', dispatched: true });
      expect(outcome.status).toBeUndefined();
      await serverSocketClosed;
    });

    it('a reset in the middle of the body keeps the status that had arrived', async () => {
      const { url, socket } = await startStallingBody();
      const { options, arrived } = capabilities.observeHeaders();

      const pending = executor(options).execute(call(url));
      await arrived;
      socket()?.resetAndDestroy();
      const outcome = expectError(await pending);

      expect(outcome).toMatchObject({ kind: 'socket', dispatched: true, status: 200, code: 'ECONNRESET' });
    });

    it('sends nothing when the signal is already aborted', async () => {
      const { seen, url } = await startHttp((_req, res) => res.end('{}'));

      const outcome = expectError(await executor().execute(call(url, { signal: AbortSignal.abort() })));

      expect(outcome).toMatchObject({ kind: 'aborted', dispatched: false });
      expect(seen).toHaveLength(0);
    });

    it('a declared content-length over maxResponseBytes is too-large', async () => {
      const { url } = await startHttp((_req, res) => res.end('x'.repeat(2_000)));

      const outcome = expectError(await executor().execute(call(url, { maxResponseBytes: 1_000 })));

      expect(outcome).toMatchObject({ kind: 'too-large', dispatched: true, status: 200 });
    });

    it('an undeclared (chunked) body stops being read as soon as it passes maxResponseBytes', async () => {
      let chunksWritten = 0;
      let serverSocketClosed: Promise<void> = Promise.resolve();
      const { url } = await startHttp((req, res) => {
        serverSocketClosed = whenClosed(req.socket);
        res.writeHead(200, { 'content-type': 'application/json' });
        const writeMore = (): void => {
          if (res.destroyed || chunksWritten >= 1_000) return void res.end();
          chunksWritten++;
          res.write('y'.repeat(16_384), writeMore);
        };
        writeMore();
      });

      const outcome = expectError(await executor().execute(call(url, { maxResponseBytes: 50_000 })));

      expect(outcome).toMatchObject({ kind: 'too-large', dispatched: true, status: 200 });
      await serverSocketClosed;
      expect(chunksWritten).toBeLessThan(1_000);
    });

    it.each([
      ['with its compressed content-length declared', true],
      ['sent chunked', false],
    ])('a gzip bomb (%s) is too-large once decoded, though its compressed size is small', async (_label, declared) => {
      const bomb = zlib.gzipSync(Buffer.alloc(10_000_000));
      const { url } = await startHttp((_req, res) => {
        res.writeHead(200, { 'content-encoding': 'gzip', ...(declared ? { 'content-length': bomb.length } : {}) });
        res.end(bomb);
      });

      const outcome = expectError(await executor().execute(call(url, { maxResponseBytes: 1_000_000 })));

      expect(bomb.length).toBeLessThan(1_000_000);
      expect(outcome).toMatchObject({ kind: 'too-large', dispatched: true, status: 200 });
    });

    it.each(capabilities.decodes.map((encoding) => [encoding]))('decodes a %s body', async (encoding) => {
      const json = '{"jsonrpc":"2.0","id":1,"result":"ünïcode"}';
      const { url } = await startHttp((_req, res) => {
        res.writeHead(200, { 'content-encoding': encoding });
        res.end(COMPRESS[encoding](Buffer.from(json)));
      });

      const outcome = await executor().execute(call(url));

      expect(outcome).toMatchObject({ type: 'response', status: 200, body: json });
    });

    it('a corrupted gzip body is a decode failure', async () => {
      const gz = zlib.gzipSync(Buffer.from('{"jsonrpc":"2.0","id":1,"result":1}'));
      const corrupted = Buffer.concat([gz.subarray(0, 10), Buffer.from('this is not a deflate stream')]);
      const { url } = await startHttp((_req, res) => {
        res.writeHead(200, { 'content-encoding': 'gzip' });
        res.end(corrupted);
      });

      const outcome = expectError(await executor().execute(call(url)));

      expect(outcome).toMatchObject({ kind: 'decode', dispatched: true, status: 200 });
    });
  });
}
