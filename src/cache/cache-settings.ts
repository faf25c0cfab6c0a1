/** The read cache's options (`cache`) and their defaults. */

export interface CacheTtlSettings {
  /**
   * How long an unfinalized answer (above the answering endpoint's finalized head, or Solana
   * `confirmed`) is kept, in ms; 0 keeps none. Such entries are also dropped when a reorg is
   * seen. @default 0 (off)
   */
  readonly unfinalized?: number;
  /** How long an answer that follows the head (`latest` blocks, Solana account reads) is kept, in ms; 0 keeps none. @default 0 (off) */
  readonly realtime?: number;
}

export interface CacheSettings {
  /** Largest total size of the kept answers (their JSON text plus keys), in bytes. @default 33554432 (32 MiB) */
  readonly maxBytes?: number;
  /** Most answers kept. @default 100000 */
  readonly maxEntries?: number;
  /** Largest single answer kept, in bytes of JSON text; a larger one is served but not kept. @default 1048576 (1 MiB) */
  readonly maxEntryBytes?: number;
  /** Per-class lifetimes; finalized answers live until evicted. @default { unfinalized: 0, realtime: 0 } */
  readonly ttl?: CacheTtlSettings;
  /**
   * `'two-operators'`: a finalized answer is kept only once an endpoint of another operator
   * answered the same (one extra request per kept answer; none is kept without such an
   * endpoint). @default 'none'
   */
  readonly verify?: 'none' | 'two-operators';
  /**
   * With the pool's `fleet`: finalized answers are shared through the fleet's store for `ttl`
   * ms, and a read another process is already fetching is waited for (at most half the call's
   * budget). `false`: this pool's cache stays local. @default { ttl: 3600000 }
   */
  readonly fleet?: { readonly ttl?: number } | false;
}

export interface ResolvedCacheSettings {
  readonly maxBytes: number;
  readonly maxEntries: number;
  readonly maxEntryBytes: number;
  readonly unfinalizedTtlMs: number;
  readonly realtimeTtlMs: number;
  readonly verify: 'none' | 'two-operators';
  /** How long a finalized answer shared through a fleet lives in its store, in ms; 0: not shared. */
  readonly fleetTtlMs: number;
}

export const DEFAULT_CACHE_MAX_BYTES = 32 * 1024 * 1024;
export const DEFAULT_CACHE_MAX_ENTRIES = 100_000;
export const DEFAULT_CACHE_MAX_ENTRY_BYTES = 1024 * 1024;
export const DEFAULT_CACHE_FLEET_TTL_MS = 3_600_000;

/** Undefined with `cache: false`: the stage is then absent from the path. */
export function resolveCacheSettings(cache: CacheSettings | false | undefined): ResolvedCacheSettings | undefined {
  if (cache === false) return undefined;
  const settings = cache ?? {};
  return {
    maxBytes: settings.maxBytes ?? DEFAULT_CACHE_MAX_BYTES,
    maxEntries: settings.maxEntries ?? DEFAULT_CACHE_MAX_ENTRIES,
    maxEntryBytes: settings.maxEntryBytes ?? DEFAULT_CACHE_MAX_ENTRY_BYTES,
    unfinalizedTtlMs: settings.ttl?.unfinalized ?? 0,
    realtimeTtlMs: settings.ttl?.realtime ?? 0,
    verify: settings.verify ?? 'none',
    fleetTtlMs: settings.fleet === false ? 0 : (settings.fleet?.ttl ?? DEFAULT_CACHE_FLEET_TTL_MS),
  };
}
