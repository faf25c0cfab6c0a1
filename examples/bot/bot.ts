// An application imports these from 'sturdy-rpc' and 'sturdy-rpc/solana'.
/**
 * A user's bot: polls wallet balances and decides which wallets to top up. It never acts
 * on a balance it could not read — a read that fails (rate limit, a silent node, the
 * deadline) becomes a `skip` decision, never a guess.
 *
 * Time comes from an injected clock, so its tests (bot.test.ts) drive it with the fake
 * clock from `sturdy-rpc/testing` and assert deadlines and cooldowns to the millisecond.
 */
import { isTransportError, systemClock, type Clock, type RpcRequester, type TransportErrorCode } from '../../src/index.js';
import { createSolanaClient } from '../../src/solana/index.js';

export interface BalanceBotOptions {
  /** Where reads go: an `HttpTransportPool` in production and in tests. */
  readonly rpc: RpcRequester;
  readonly wallets: readonly string[];
  /** Wallets below this balance get topped up, in lamports. */
  readonly minLamports: bigint;
  /** Deadline of one balance read (admission, attempts and retries), in ms. @default 2000 */
  readonly readTimeoutMs?: number;
  /** @default the system clock */
  readonly clock?: Clock;
}

export type Decision =
  | { readonly wallet: string; readonly action: 'top-up' | 'hold'; readonly lamports: bigint; readonly atMs: number }
  | { readonly wallet: string; readonly action: 'skip'; readonly reason: TransportErrorCode; readonly atMs: number };

export interface RunOptions {
  /** Pause between the end of one check and the start of the next, in ms. */
  readonly intervalMs: number;
  /** Stops the loop (and aborts a read in flight). */
  readonly signal: AbortSignal;
  readonly onDecisions: (decisions: readonly Decision[]) => void;
}

export interface BalanceBot {
  /** Reads every wallet once, in order, and decides. Rejects only on programming errors. */
  checkOnce(signal?: AbortSignal): Promise<Decision[]>;
  /** Checks, waits `intervalMs` on the bot's clock, and again, until `signal` aborts. */
  run(options: RunOptions): Promise<void>;
}

export function createBalanceBot(options: BalanceBotOptions): BalanceBot {
  const clock = options.clock ?? systemClock;
  const timeoutMs = options.readTimeoutMs ?? 2_000;
  const sol = createSolanaClient(options.rpc, { commitment: 'confirmed' });

  async function decide(wallet: string, signal: AbortSignal | undefined): Promise<Decision> {
    try {
      const { value } = await sol.getBalance(wallet, {}, signal === undefined ? { timeoutMs } : { timeoutMs, signal });
      const action = value < options.minLamports ? 'top-up' : 'hold';
      return { wallet, action, lamports: value, atMs: clock.now() };
    } catch (error) {
      if (!isTransportError(error)) throw error;
      return { wallet, action: 'skip', reason: error.code, atMs: clock.now() };
    }
  }

  const bot: BalanceBot = {
    async checkOnce(signal) {
      const decisions: Decision[] = [];
      for (const wallet of options.wallets) decisions.push(await decide(wallet, signal));
      return decisions;
    },
    async run({ intervalMs, signal, onDecisions }) {
      while (!signal.aborted) {
        onDecisions(await bot.checkOnce(signal));
        await pause(clock, intervalMs, signal);
      }
    },
  };
  return bot;
}

/** Resolves after `ms` on `clock`, or as soon as `signal` aborts; leaves no timer or listener behind. */
function pause(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      timer.cancel();
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = clock.setTimer(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
