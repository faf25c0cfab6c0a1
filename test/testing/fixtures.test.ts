import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadFixtures, parseFixture, resultFixture } from '../../src/testing/fixtures.js';
import { createFixtureServer } from '../../src/testing/fixture-server.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { FIXTURES_DIR } from './helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dirWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'sturdy-fixtures-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const valid = (name: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    name,
    source: 'test',
    chain: 'solana',
    request: { method: 'getSlot', params: [{ minContextSlot: 18446744073709551615n.toString() }] },
    response: { status: 200, headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"result":1}' },
    ...extra,
  });

describe('loadFixtures', () => {
  it('loads and validates every fixture in fixtures/, sorted by file name', () => {
    const fixtures = loadFixtures(FIXTURES_DIR);
    expect(fixtures.length).toBeGreaterThan(20);
    const files = readdirSync(FIXTURES_DIR).filter((file) => file.endsWith('.json')).sort();
    expect(fixtures.map((f) => `${f.name}.json`)).toEqual(files);
    expect(fixtures.find((f) => f.name === 'solana-getHealth-ok')?.response.body).toBe('{"jsonrpc":"2.0","result":"ok","id":1}');
  });

  it('loads a list of files, keeping integers above 2^53 in params exact', () => {
    const dir = dirWith({
      'a.json': valid('a').replace('"18446744073709551615"', '18446744073709551615'),
      'notes.txt': 'ignored',
    });
    const [fixture] = loadFixtures([join(dir, 'a.json')]);
    expect(fixture?.request.params).toEqual([{ minContextSlot: 18446744073709551615n }]);
    expect(loadFixtures(dir).map((f) => f.name)).toEqual(['a']);
  });

  it('names the file and the field of an invalid fixture', () => {
    const dir = dirWith({ 'bad-status.json': valid('bad-status', { response: { status: 'ok', headers: {}, body: '' } }) });
    expect(() => loadFixtures(dir)).toThrow(/bad-status\.json: invalid fixture at response\.status/);
  });

  it('names the file that is not JSON, and rejects duplicate names', () => {
    expect(() => loadFixtures(dirWith({ 'broken.json': '{"name":' }))).toThrow(/broken\.json: not valid JSON/);
    expect(() => loadFixtures(dirWith({ 'one.json': valid('same'), 'two.json': valid('same') }))).toThrow(
      /two\.json: fixture name "same" is already used by .*one\.json/,
    );
    expect(() => loadFixtures(join(tmpdir(), 'sturdy-no-such-dir-for-fixtures'))).toThrow(/cannot read fixture/);
  });

  it('parseFixture rejects upper-case header names and a missing request', () => {
    const base = JSON.parse(valid('x')) as Record<string, unknown>;
    expect(() => parseFixture({ ...base, response: { status: 200, headers: { 'Content-Type': 'x' }, body: '' } }, 'x.json')).toThrow(
      /x\.json: invalid fixture at response\.headers/,
    );
    const { request: _request, ...withoutRequest } = base;
    expect(() => parseFixture(withoutRequest, 'y.json')).toThrow(/y\.json: invalid fixture at request/);
  });
});

describe('fixture header values', () => {
  it('refuses header values Node cannot send (line breaks, characters above U+00FF), naming the field', () => {
    const base = {
      name: 'x',
      source: 'test',
      chain: 'solana',
      request: { method: 'getSlot', params: [] },
      response: { status: 200, headers: { 'x-note': 'caf\u0100' }, body: '{}' },
    };
    expect(() => parseFixture(base, 'x.json')).toThrow(/headers/);
    expect(() => parseFixture({ ...base, response: { ...base.response, headers: { 'x-note': 'a\r\nb' } } }, 'x.json')).toThrow(/headers/);
    expect(parseFixture({ ...base, response: { ...base.response, headers: { 'x-note': 'café' } } }, 'x.json').response.headers['x-note']).toBe('café');
  });
});

describe('resultFixture', () => {
  it('builds a valid fixture whose body carries the result exactly, u64 included, that a fixture server answers with', async () => {
    const fixture = resultFixture('solana', 'getBalance', ['Vote111111111111111111111111111111111111111'], { context: { slot: 1 }, value: 18446744073709551615n });
    expect(parseFixture(JSON.parse(JSON.stringify(fixture)))).toEqual(fixture);
    expect(fixture.response.body).toBe('{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":1},"value":18446744073709551615}}');
    const node = await createFixtureServer({ fixtures: [fixture] });
    try {
      const pool = new HttpTransportPool({ endpoints: [{ url: node.url }] });
      await expect(pool.request('getBalance', ['Vote111111111111111111111111111111111111111'])).resolves.toEqual({ context: { slot: 1 }, value: 18446744073709551615n });
      await pool.close();
    } finally {
      await node.close();
    }
  });
});
