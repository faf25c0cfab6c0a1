// Code health held by the tools people use for it: typescript-eslint's recommended rules for
// correctness, and a file-size limit (one concept per file: split past 300 lines).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', '.bench-build/**', '.first-version/**', 'node_modules/**', 'coverage/**', 'docs/api/**'] },
  {
    files: ['src/**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    rules: {
      'max-lines': ['error', { max: 300, skipBlankLines: false, skipComments: false }],
      // A parameter kept for an interface's shape is named `_x`.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
);
