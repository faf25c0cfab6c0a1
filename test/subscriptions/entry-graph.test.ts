import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * `ws` is an optional peer: no entry point imports it statically. Node loads it with a
 * dynamic import when the first subscription opens a socket (and the fixture server when
 * its WebSocket side is turned on).
 */
const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const STATIC_IMPORT = /(?:import|export)\s[^'"]*?from\s+'([^']+)'/g;

function staticSpecifiers(entry: string): Set<string> {
  const seen = new Set<string>();
  const specifiers = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) {
      if (/^(?:import|export)\s+type\s/.test(match[0])) continue;
      const specifier = match[1] ?? '';
      specifiers.add(specifier);
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
    }
  };
  visit(resolve(SRC, entry));
  return specifiers;
}

describe('ws stays out of the static import graph', () => {
  for (const entry of ['index.ts', 'solana/index.ts', 'evm/index.ts', 'testing/index.ts']) {
    it(`${entry} never imports ws statically`, () => {
      const specifiers = [...staticSpecifiers(entry)];
      expect(specifiers.length).toBeGreaterThan(5);
      expect(specifiers.filter((s) => s === 'ws' || s.startsWith('ws/'))).toEqual([]);
    });
  }

  it('the main entry reaches the socket layer, which loads ws with a dynamic import', () => {
    const specifiers = staticSpecifiers('index.ts');
    expect(specifiers).toContain('./subscriptions/socket.js');
    const socket = readFileSync(resolve(SRC, 'subscriptions/socket.ts'), 'utf8');
    expect(socket).toMatch(/import\(specifier\)/);
  });
});
