import { access, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { stringify as stringifyLossless } from 'lossless-json';
import { createUndiciExecutor } from '../http/undici-executor.js';
import { parseJsonExact } from '../jsonrpc/exact-json.js';
import { HttpTransportPool } from '../pool/http-transport-pool.js';
import type { Fixture } from '../testing/fixtures.js';
import { createRecorder } from '../testing/recorder.js';
import { httpUrl, positiveNumber, UsageError, type CliCommand } from './args.js';
import { redactUrl } from '../errors/redact.js';
import { describeCallFailure } from './failure-text.js';

const HELP = `Usage: sturdy-rpc record --url <url> --method <method> [--params <json array>] --out <dir> [options]

Sends one JSON-RPC call (never retried) and writes what the node answered as a fixture file
(the fixtures/ format) in <dir>, then prints the file's path. The file holds no URL and no
request header; parts of the URL and header values that look like keys are replaced by
<redacted> in the response; the URL is never printed.

Options:
  --url <url>              the endpoint (may hold a key: it is not stored or printed)
  --method <method>        the JSON-RPC method, e.g. getVersion, eth_chainId
  --params <json>          the params as a JSON array (default []); big integers stay exact
  --out <dir>              directory to write to (created if missing)
  --name <name>            file name without .json (default <method>-<n>, the first free n);
                           an existing file is never overwritten
  --header 'Name: value'   a request header, e.g. an API key header (repeatable; never stored)
  --chain <chain>          solana | evm, the fixture's "chain" (default: from the method name)
  --timeout <ms>           deadline of the call (default 10000)
  -h, --help               show this help

Exit codes: 0 a fixture was written (also for a JSON-RPC error, 429 or 5xx answer, which are
recorded as they are); 1 no answer to record (network failure) or the file could not be
written; 2 bad arguments.`;

const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

function parseParams(text: string | undefined): readonly unknown[] {
  if (text === undefined) return [];
  let value: unknown;
  try {
    value = parseJsonExact(text);
  } catch {
    throw new UsageError('--params is not valid JSON (expected a JSON array, e.g. \'["addr", {"commitment":"confirmed"}]\')');
  }
  if (!Array.isArray(value)) throw new UsageError('--params must be a JSON array, e.g. \'["addr"]\'');
  return value;
}

function parseHeaders(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  lines.forEach((line, i) => {
    const colon = line.indexOf(':');
    const name = colon === -1 ? '' : line.slice(0, colon).trim().toLowerCase();
    // The message never echoes the header: its value is probably a key.
    if (!/^[a-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) throw new UsageError(`--header #${i + 1} must look like 'Name: value'`);
    headers[name] = line.slice(colon + 1).trim();
  });
  return headers;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/** `<dir>/<name>.json` for `--name`, else the first free `<method>-<n>.json`. */
async function chooseName(dir: string, method: string, name: string | undefined): Promise<string> {
  if (name !== undefined) {
    if (await exists(join(dir, `${name}.json`))) throw new UsageError(`--name: ${join(dir, `${name}.json`)} already exists (never overwritten)`);
    return name;
  }
  const base = method.replace(/[^A-Za-z0-9_.-]/g, '_');
  for (let n = 1; ; n++) if (!(await exists(join(dir, `${base}-${n}.json`)))) return `${base}-${n}`;
}

export const recordCommand: CliCommand = {
  name: 'record',
  summary: 'send one call and write the answer as a fixture file (no URL, no key)',
  help: HELP,
  async run(args) {
    const { values } = parseArgs({
      args: [...args],
      options: {
        url: { type: 'string' },
        method: { type: 'string' },
        params: { type: 'string' },
        out: { type: 'string' },
        name: { type: 'string' },
        header: { type: 'string', multiple: true },
        chain: { type: 'string' },
        timeout: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    });
    if (values.url === undefined) throw new UsageError('--url is required');
    if (values.method === undefined || values.method.trim() === '') throw new UsageError('--method is required');
    if (values.out === undefined || values.out === '') throw new UsageError('--out is required');
    const url = httpUrl(values.url, 'url', 1);
    const method = values.method.trim();
    const params = parseParams(values.params);
    const headers = parseHeaders(values.header ?? []);
    const chain = values.chain;
    if (chain !== undefined && chain !== 'solana' && chain !== 'evm') throw new UsageError("--chain must be 'solana' or 'evm'");
    if (values.name !== undefined && !NAME.test(values.name)) throw new UsageError('--name may hold letters, digits, _ . - only');
    const timeoutMs = positiveNumber(values.timeout, 'timeout', 10_000);
    const name = await chooseName(values.out, method, values.name);

    const recorded: Fixture[] = [];
    const recorder = createRecorder({
      executor: createUndiciExecutor(),
      onRecord: (fixture) => recorded.push(fixture),
      ...(chain === undefined ? {} : { chain: chain as 'solana' | 'evm' }),
    });
    const pool = new HttpTransportPool({
      endpoints: [{ id: 'record', url, headers, requestTimeoutMs: timeoutMs }],
      executor: recorder,
      retry: { maxRetries: 0 },
      reputation: false,
    });
    let failure: string | undefined;
    try {
      await pool.request(method, params, { timeoutMs, retryClass: 'not-applicable' });
    } catch (error) {
      failure = describeCallFailure(error).text;
    } finally {
      await pool.close();
    }
    const fixture = recorded[0];
    if (fixture === undefined) throw new Error(`record failed: ${failure ?? 'no answer'}; nothing was recorded`);

    const day = new Date().toISOString().slice(0, 10);
    const file = join(values.out, `${name}.json`);
    const stored: Fixture = { ...fixture, name, source: `recorded by sturdy-rpc record from ${redactUrl(url)} on ${day}` };
    await mkdir(values.out, { recursive: true });
    try {
      await writeFile(file, `${stringifyLossless(stored, null, 2) ?? ''}\n`, { encoding: 'utf8', flag: 'wx' });
    } catch (error) {
      const code: unknown = typeof error === 'object' && error !== null ? Reflect.get(error, 'code') : undefined;
      throw new Error(`cannot write ${file}${typeof code === 'string' ? ` (${code})` : ''}`, { cause: error });
    }
    console.log(file);
    if (failure !== undefined) console.error(`note: the call failed (${failure}); the answer was recorded as it is`);
    return 0;
  },
};
