import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { parseJsonExact, stringifyJson } from '../jsonrpc/exact-json.js';

/**
 * The fixture file format (`fixtures/README.md`): one recorded JSON-RPC exchange per file.
 * `response.body` is the exact raw body text (it may be HTML, truncated or empty) and
 * answers `"id": 1`; replaying code substitutes the id of the request it received.
 */
export const fixtureSchema = z.object({
  /** Unique name; by convention the file name without `.json`. */
  name: z.string().min(1),
  /** Where the values come from (recorded / illustrative / unverified). */
  source: z.string(),
  chain: z.enum(['solana', 'evm']),
  request: z.object({
    method: z.string().min(1),
    params: z.array(z.unknown()),
  }),
  response: z.object({
    /** HTTP status code. */
    status: z.int().min(100).max(599),
    /** Lower-case header names, string values. */
    headers: z.record(
      z.string().regex(/^[a-z0-9!#$%&'*+.^_`|~-]+$/, 'header names must be lower-case tokens'),
      // What Node's HTTP server accepts in a header value: no CR/LF, nothing above U+00FF.
      z.string().regex(/^[\t\x20-\x7e\x80-\xff]*$/, 'header values must be visible Latin-1 text without line breaks'),
    ),
    /** The exact raw body text. */
    body: z.string(),
  }),
  /** What a correct consumer makes of the response (see fixtures/README.md). */
  expect: z.record(z.string(), z.unknown()).optional(),
});

/** One recorded request/response pair, as stored in a `fixtures/*.json` file. */
export interface Fixture {
  readonly name: string;
  readonly source: string;
  readonly chain: 'solana' | 'evm';
  readonly request: { readonly method: string; readonly params: readonly unknown[] };
  readonly response: {
    readonly status: number;
    readonly headers: Readonly<Record<string, string>>;
    readonly body: string;
  };
  readonly expect?: Readonly<Record<string, unknown>>;
}

/**
 * An inline fixture answering `method` with `params` by `result` (HTTP 200, JSON) — for
 * tests and examples that do not need a recorded file. The id in the body is replaced by the
 * request's, like every fixture's.
 *
 * ```ts
 * const node = await createFixtureServer({ fixtures: [resultFixture('solana', 'getSlot', [], 341197060)] });
 * ```
 */
export function resultFixture(chain: Fixture['chain'], method: string, params: readonly unknown[], result: unknown): Fixture {
  return {
    name: `inline-${method}`,
    source: 'resultFixture()',
    chain,
    request: { method, params },
    response: { status: 200, headers: { 'content-type': 'application/json' }, body: stringifyJson({ jsonrpc: '2.0', id: 1, result }) },
  };
}

/**
 * Validates one parsed fixture. `origin` (a file name) is named in the error message.
 *
 * @throws Error naming `origin` and the first offending field.
 */
export function parseFixture(value: unknown, origin = 'fixture'): Fixture {
  const parsed = fixtureSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue === undefined || issue.path.length === 0 ? '(root)' : issue.path.join('.');
    throw new Error(`${origin}: invalid fixture at ${path}: ${issue?.message ?? 'invalid'}`, { cause: parsed.error });
  }
  const { expect, ...rest } = parsed.data;
  return expect === undefined ? rest : { ...rest, expect };
}

/**
 * Reads and validates fixture files. Pass a directory (every `*.json` file in it, sorted by
 * name; `README.md` and other files are ignored) or a list of file paths. Integers above
 * 2^53 in request params stay exact (`bigint`).
 *
 * ```ts
 * const fixtures = loadFixtures('fixtures');
 * const server = await createFixtureServer({ fixtures });
 * ```
 *
 * @throws Error naming the file when it cannot be read, is not JSON, or is not a fixture;
 *   and when two fixtures share a `name`.
 */
export function loadFixtures(dirOrFiles: string | readonly string[]): Fixture[] {
  const files = typeof dirOrFiles === 'string' ? listJsonFiles(dirOrFiles) : [...dirOrFiles];
  const fixtures: Fixture[] = [];
  const seen = new Map<string, string>();
  for (const file of files) {
    const fixture = readFixtureFile(file);
    const previous = seen.get(fixture.name);
    if (previous !== undefined) {
      throw new Error(`${file}: fixture name "${fixture.name}" is already used by ${previous}`);
    }
    seen.set(fixture.name, file);
    fixtures.push(fixture);
  }
  return fixtures;
}

function listJsonFiles(dir: string): string[] {
  let names: string[];
  try {
    if (!statSync(dir).isDirectory()) return [dir];
    names = readdirSync(dir);
  } catch (error) {
    throw new Error(`${dir}: cannot read fixture directory`, { cause: error });
  }
  return names
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => join(dir, name));
}

function readFixtureFile(file: string): Fixture {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`${file}: cannot read fixture file`, { cause: error });
  }
  let value: unknown;
  try {
    value = parseJsonExact(text);
  } catch (error) {
    throw new Error(`${file}: not valid JSON`, { cause: error });
  }
  return parseFixture(value, file);
}
