import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { publicEntrySources } from '../helpers/package-entries.js';

/**
 * Every ```ts block of README.md and docs/*.md is a program that type-checks against the
 * package as a user imports it (`sturdy-rpc`, `sturdy-rpc/solana`, … resolved to the sources
 * through package.json's `exports`) and the peers installed here (viem, @solana/kit, ethers, …).
 * One TypeScript program holds every block, each a module of its own, so the check costs one
 * compile. A block names what it does not define with `declare` lines at its top: what a
 * reader must bring is written in the block, not hidden in a prelude.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BLOCKS_DIR = `${ROOT}.doc-blocks/`;

interface CodeBlock {
  /** Where the block is, for the failure message: `docs/reads.md:89`. */
  readonly origin: string;
  readonly code: string;
}

/** Every fenced block of one markdown text, in order, with its info string and the line it opens on. */
function fencedBlocksOf(markdown: string, file: string): (CodeBlock & { readonly language: string })[] {
  const blocks: (CodeBlock & { readonly language: string })[] = [];
  const lines = markdown.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const open = /^```(\S*)/.exec(lines[index]!);
    if (open === null) continue;
    const end = lines.findIndex((line, at) => at > index && line === '```');
    if (end === -1) throw new Error(`${file}:${index + 1}: a code block that never closes`);
    blocks.push({ origin: `${file}:${index + 1}`, language: open[1]!, code: lines.slice(index + 1, end).join('\n') });
    index = end;
  }
  return blocks;
}

/** The ```ts blocks of one markdown text. */
function codeBlocksOf(markdown: string, file: string): CodeBlock[] {
  return fencedBlocksOf(markdown, file).filter((block) => block.language === 'ts');
}

const PAGES = ['README.md', ...readdirSync(`${ROOT}docs`).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

function documentedBlocks(): CodeBlock[] {
  return PAGES.flatMap((file) => codeBlocksOf(readFileSync(`${ROOT}${file}`, 'utf8'), file));
}

/** Type-checks `blocks` as one program; returns each diagnostic as `origin (line n): message`. */
function typeCheckBlocks(blocks: readonly CodeBlock[]): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(`${ROOT}tsconfig.json`, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (config === undefined) throw new Error('tsconfig.json could not be read');
  const options: ts.CompilerOptions = {
    ...config.options,
    noEmit: true,
    baseUrl: ROOT,
    paths: Object.fromEntries(Object.entries(publicEntrySources()).map(([specifier, source]) => [specifier, [`./${source}`]])),
    // A block shows one thing: a value it computes and does not use again is fine.
    noUnusedLocals: false,
    noUnusedParameters: false,
  };
  // Each block is a virtual module under the checkout (never written): node_modules resolves from there.
  const files = new Map(blocks.map((block, index) => [`${BLOCKS_DIR}block-${index}.ts`, { block, text: `${block.code}\nexport {};\n` }]));
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, onError, create) => {
    const virtual = files.get(name);
    return virtual === undefined ? getSourceFile(name, language, onError, create) : ts.createSourceFile(name, virtual.text, language, true);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => files.has(name) || fileExists(name);
  const readFile = host.readFile.bind(host);
  host.readFile = (name) => files.get(name)?.text ?? readFile(name);
  const program = ts.createProgram({ rootNames: [...files.keys()], options, host });
  return [...files].flatMap(([name, { block }]) => {
    const source = program.getSourceFile(name)!;
    return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((diagnostic) => {
      const line = diagnostic.start === undefined ? 0 : source.getLineAndCharacterOfPosition(diagnostic.start).line + 1;
      return `${block.origin} (line ${line} of the block): ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    });
  });
}

/** A block that misuses the API, checked in the same program: the check is not vacuous. */
const WRONG = codeBlocksOf("```ts\nimport { HttpTransportPool } from 'sturdy-rpc';\nnew HttpTransportPool({ endpoints: [{ url: 1 }] });\n```\n", 'wrong.md');

describe('code blocks of the README and the guides', () => {
  let diagnostics: string[] | undefined;
  const check = () => (diagnostics ??= typeCheckBlocks([...documentedBlocks(), ...WRONG]));

  it('finds a block in the README and in every guide that teaches an API (the CLI, performance and architecture pages show none)', () => {
    const files = new Set(documentedBlocks().map((block) => block.origin.split(':')[0]));
    const guides = readdirSync(`${ROOT}docs`).filter((name) => name.endsWith('.md') && !['cli.md', 'performance.md', 'architecture.md'].includes(name));
    expect(guides.length).toBeGreaterThanOrEqual(12);
    expect(['README.md', ...guides.map((name) => `docs/${name}`)].filter((file) => !files.has(file))).toEqual([]);
  });

  it('leaves no code that imports the package in a block of another language (it would escape the check)', () => {
    const escaped = PAGES.flatMap((file) => fencedBlocksOf(readFileSync(`${ROOT}${file}`, 'utf8'), file))
      .filter((block) => block.language !== 'ts' && /from '(sturdy-rpc|viem|@solana\/kit)/.test(block.code))
      .map((block) => `${block.origin}: \`\`\`${block.language}`);
    expect(escaped).toEqual([]);
  });

  it('type-checks every ```ts block against the package, all in one program', () => {
    expect(check().filter((line) => !line.startsWith('wrong.md:'))).toEqual([]);
  }, 120_000);

  it('reports a block that misuses the API, with where it is', () => {
    const wrong = check().filter((line) => line.startsWith('wrong.md:'));
    expect(wrong).toHaveLength(1);
    expect(wrong[0]).toMatch(/^wrong\.md:1 \(line 2 of the block\): Type 'number' is not assignable to type 'string'/);
  }, 120_000);
});
