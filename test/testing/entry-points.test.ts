import { describe, expect, it } from 'vitest';
import * as testing from '../../src/testing/index.js';
import { reachableSpecifiers } from '../helpers/module-graph.js';

/**
 * `sturdy-rpc/testing` must load without msw installed (msw is an optional peer), and the
 * msw entry must stay free of Node APIs (it also serves `msw/browser`).
 */

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
      'loadFixtures',
      'parseFixture',
      'resultFixture',
    ]);
  });
});
