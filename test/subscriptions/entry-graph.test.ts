import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { reachableSpecifiers } from '../helpers/import-graph.js';

/**
 * `ws` is an optional peer: no entry point imports it statically. Node loads it with a
 * dynamic import when the first subscription opens a socket (and the fixture server when
 * its WebSocket side is turned on).
 */
describe('ws stays out of the static import graph', () => {
  for (const entry of ['index.ts', 'solana/index.ts', 'evm/index.ts', 'testing/index.ts']) {
    it(`${entry} never imports ws statically`, () => {
      const specifiers = [...reachableSpecifiers(entry)];
      expect(specifiers.length).toBeGreaterThan(5);
      expect(specifiers.filter((s) => s === 'ws' || s.startsWith('ws/'))).toEqual([]);
    });
  }

  it('the main entry reaches the socket layer, which loads ws with a dynamic import', () => {
    const specifiers = reachableSpecifiers('index.ts');
    expect(specifiers).toContain('./subscriptions/socket.js');
    const socket = readFileSync(new URL('../../src/subscriptions/socket.ts', import.meta.url), 'utf8');
    expect(socket).toMatch(/import\(specifier\)/);
  });
});
