#!/usr/bin/env bash
# Builds and packs the package, installs the tarball into an empty project and imports
# every public entry point from plain Node, with types checked by tsc, then runs the testing
# guide's first program (docs/testing.md) verbatim. Proves `npm pack`
# ships what the exports map promises (no source-only paths).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cd "$root"
npm run build >/dev/null
tarball="$(npm pack --silent --pack-destination "$work" | tail -n 1)"

cd "$work"
npm init -y >/dev/null
npm install --no-audit --no-fund --prefer-offline "$work/$tarball" >/dev/null
cat > smoke.mjs <<'JS'
import { HttpTransportPool, TransportError, evaluateTransportRetry, isTransportError } from 'sturdy-rpc';
import { createSolanaClient } from 'sturdy-rpc/solana';
import { createEvmClient } from 'sturdy-rpc/evm';
import { createFakeClock } from 'sturdy-rpc/testing';
import { createPoolFetch } from 'sturdy-rpc/fetch';
import { sturdyTransport } from 'sturdy-rpc/viem';
import { kitTransport } from 'sturdy-rpc/kit';
for (const f of [createPoolFetch, sturdyTransport, kitTransport]) if (typeof f !== 'function') throw new Error('adapter missing');
const pool = new HttpTransportPool({ endpoints: [{ url: 'http://127.0.0.1:9' }], clock: createFakeClock() });
if (typeof createSolanaClient(pool).getBalance !== 'function') throw new Error('solana client missing');
if (typeof createEvmClient(pool).getBalance !== 'function') throw new Error('evm client missing');
try { new HttpTransportPool({ endpoints: [] }); } catch (e) { if (!isTransportError(e, 'INVALID_CONFIG')) throw e; }
const d = evaluateTransportRetry({ cause: 'connection', dispatch: 'dispatched-ambiguous', retryClass: 'never-after-dispatch', attempt: 1, settings: { maxRetries: 3, initialBackoffMs: 100, maxBackoffMs: 2000 } });
if (d.retry) throw new Error('retry rule broken');
const status = await pool.serveStatus();
if (!/^http:\/\/127\.0\.0\.1:\d+\/status$/.test(status.url)) throw new Error('serveStatus broken');
const { existsSync } = await import('node:fs');
for (const file of ['metrics/prometheus.js', 'otel/index.js', 'status/status-server.js']) {
  if (!existsSync(new URL(`./node_modules/sturdy-rpc/dist/${file}`, import.meta.url))) throw new Error(`dist/${file} missing`);
}
await pool.close();
// The recorded fixtures ship: by sub-path and through fixturesDir.
const { fixturesDir, loadFixtures } = await import('sturdy-rpc/testing');
const { readFileSync } = await import('node:fs');
const byPath = JSON.parse(readFileSync(new URL(import.meta.resolve('sturdy-rpc/fixtures/solana-getBalance.json')), 'utf8'));
if (byPath.name !== 'solana-getBalance' || loadFixtures(fixturesDir).length < 20) throw new Error('fixtures missing from the tarball');
console.log('pack smoke: ok', TransportError.name);
JS
node smoke.mjs
cat > smoke.ts <<'TS'
import { HttpTransportPool, type PoolSnapshot } from 'sturdy-rpc';
import { createSolanaClient, type GetBalanceReturnType } from 'sturdy-rpc/solana';
const pool = new HttpTransportPool({ endpoints: [{ url: 'http://127.0.0.1:9', tier: 0 }] });
const snapshot: PoolSnapshot = pool.snapshot();
const balance: Promise<GetBalanceReturnType> = createSolanaClient(pool).getBalance('11111111111111111111111111111111');
void snapshot; void balance;
TS
"$root/node_modules/.bin/tsc" --noEmit --strict --module nodenext --moduleResolution nodenext --target es2022 --lib es2023,esnext.disposable,dom --types node --typeRoots "$root/node_modules/@types" smoke.ts
echo "pack smoke: types ok"
# The testing guide's snippet (docs/testing.md), verbatim, as an installed user would run it (fixtures ship in the tarball).
awk '/<!-- pack-smoke: testing-snippet -->/{marked=1; next} marked && /^```ts/{inside=1; next} inside && /^```/{exit} inside{print}' "$root/docs/testing.md" > testing-snippet.mjs
test -s testing-snippet.mjs || { echo "pack smoke: docs/testing.md testing snippet not found" >&2; exit 1; }
node testing-snippet.mjs
cp testing-snippet.mjs testing-snippet.mts
"$root/node_modules/.bin/tsc" --noEmit --strict --module nodenext --moduleResolution nodenext --target es2022 --lib es2023,esnext.disposable,dom --types node --typeRoots "$root/node_modules/@types" testing-snippet.mts
echo "pack smoke: docs/testing.md testing snippet ok"
