import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as testing from '../../src/testing/index.js';

/**
 * `sturdy-rpc/testing` must load without msw installed (msw is an optional peer), and the
 * msw entry must stay free of Node APIs (it also serves `msw/browser`).
 */

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const IMPORT = /(?:import|export)\s[^'"]*?from\s+'([^']+)'/g;

/** Every module specifier reachable from `entry` (relative imports followed, `import type` skipped). */
function reachableSpecifiers(entry: string): Set<string> {
  const seen = new Set<string>();
  const specifiers = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(IMPORT)) {
      const statement = match[0];
      const specifier = match[1] ?? '';
      if (/^(?:import|export)\s+type\s/.test(statement)) continue;
      specifiers.add(specifier);
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
    }
  };
  visit(resolve(SRC, entry));
  return specifiers;
}

describe('entry points', () => {
  it('sturdy-rpc/testing never imports msw', () => {
    const specifiers = [...reachableSpecifiers('testing/index.ts')];
    expect(specifiers.length).toBeGreaterThan(5);
    expect(specifiers.filter((s) => s === 'msw' || s.startsWith('msw/'))).toEqual([]);
  });

  it('sturdy-rpc/testing/msw imports msw and no Node built-in', () => {
    const specifiers = [...reachableSpecifiers('testing/msw.ts')];
    expect(specifiers).toContain('msw');
    expect(specifiers.filter((s) => s.startsWith('node:'))).toEqual([]);
  });

  it('exports the documented testing API', () => {
    expect(Object.keys(testing).sort()).toEqual([
      'ANVIL_GENESIS_HASH',
      'DEFAULT_UNHEALTHY_ABOVE_SLOTS',
      'createFakeClock',
      'createFixtureServer',
      'createRecorder',
      'createSeededRandom',
      'fixtureSchema',
      'fixturesDir',
      'loadFixtures',
      'parseFixture',
      'resultFixture',
    ]);
  });
});
