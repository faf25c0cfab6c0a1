import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    testTimeout: 15_000,
    // A test that asserts nothing fails: every safety rule is held by an assertion.
    expect: { requireAssertions: true },
    hookTimeout: 15_000,
  },
});
