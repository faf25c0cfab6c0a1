import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchExecutor } from '../../src/http/fetch-executor.js';
import { createUndiciExecutor } from '../../src/http/undici-executor.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';

/**
 * Bounded decompression, held by memory and not only by the outcome: a gzip bomb of a few
 * hundred KiB that inflates to 512 MiB is refused, and the process's peak RSS grows by far
 * less than the bomb's decoded size. Without the decoder's output limit the whole 512 MiB
 * would be materialised (and the peak RSS would jump by at least that much).
 * In its own file, so that its process's peak RSS is not raised by other tests.
 */

const DECODED_BYTES = 512 * 1024 * 1024;
const LIMIT_BYTES = 1024 * 1024;
const MiB = 1024 * 1024;

async function gzipOfZeros(total: number): Promise<Buffer> {
  const gzip = zlib.createGzip({ level: 9 });
  const chunks: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => chunks.push(chunk));
  const zero = Buffer.alloc(MiB);
  for (let written = 0; written < total; written += zero.length) {
    if (!gzip.write(zero)) await once(gzip, 'drain');
  }
  gzip.end();
  await once(gzip, 'end');
  return Buffer.concat(chunks);
}

let bomb: Buffer;
let server: http.Server;
let url: string;

beforeAll(async () => {
  bomb = await gzipOfZeros(DECODED_BYTES);
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': bomb.length });
      res.end(bomb);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const peakRss = () => process.resourceUsage().maxRSS * 1024;

describe.each([
  ['undici executor', () => createUndiciExecutor()],
  ['fetch executor', () => createFetchExecutor()],
])('a gzip bomb through the %s', (_name, executor) => {
  it('is refused as an invalid response, and the peak RSS grows by far less than the decoded size', async () => {
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const pool = new HttpTransportPool({ endpoints: [{ id: 'bomb', url }], executor: executor(), maxResponseBytes: LIMIT_BYTES, retry: { maxRetries: 0 } });
    try {
      const before = peakRss();
      const error = await pool.request('getSlot', []).then(
        () => undefined,
        (e: unknown) => e,
      );
      const grownBy = peakRss() - before;
      expect(error).toMatchObject({ code: 'INVALID_RESPONSE' });
      console.log(`gzip bomb (${(bomb.length / 1024).toFixed(0)} KiB → ${DECODED_BYTES / MiB} MiB): peak RSS grew by ${(grownBy / MiB).toFixed(1)} MiB`);
      expect(grownBy).toBeLessThan(64 * MiB);
    } finally {
      await pool.close();
    }
  }, 30_000);
});
