import type * as z from 'zod/mini';
import { ENGLISH_MESSAGES } from './english-messages.js';
import { operatorOf } from '../concentration/operators.js';
import { breakerKeyOf } from './breaker-key.js';
import { TransportError, type ConfigIssue } from '../errors/transport-error.js';
import type { RequestKind } from '../retry/causes.js';
import { poolConfigSchema } from './schema.js';
import type { EndpointConfig, HttpTransportPoolOptions, RoleSettings } from './types.js';
import type { ConsensusOptions } from '../consensus/types.js';
import { classifyMethod } from '../jsonrpc/method-table.js';
import { DEFAULT_LEARNED_RATE, type LearnedRateSettings } from '../admission/learned-rate.js';
import type { CreditPlan } from '../admission/credit-meter.js';
import { resolveCreditPlan } from './credit-plan.js';
import { DEFAULT_GRADIENT_LIMIT, type GradientLimitSettings } from '../admission/gradient-limit.js';

export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
export const DEFAULT_RATE_LIMIT_PAUSE_MS = 1_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
export const DEFAULT_RETRY = { maxRetries: 3, initialBackoffMs: 100, maxBackoffMs: 2_000 } as const;
export const DEFAULT_MAX_OPERATOR_SHARE = 0.65;
const DEFAULT_KINDS: readonly RequestKind[] = ['read', 'submit'];

/** One endpoint serving one kind, with every setting resolved. */
export interface NormalizedRole {
  readonly endpointId: string;
  readonly kind: RequestKind;
  readonly tier: number;
  /** A fixed rate (undefined for none, and for a learned one). */
  readonly requestsPerSecond: number | undefined;
  readonly burstCapacity: number | undefined;
  /** `requestsPerSecond: 'auto'`: the learned rate's bounds (undefined for a fixed rate or none). */
  readonly learnedRate: LearnedRateSettings | undefined;
  /** This role's own limit: its `roles.<kind>.maxConcurrentRequests`, never above the endpoint's. */
  readonly maxConcurrentRequests: number | undefined;
  readonly requestTimeoutMs: number;
  readonly pauseAfterRateLimitMs: number;
}

export interface NormalizedEndpoint {
  readonly id: string;
  readonly index: number;
  /** Internal only: never in errors, events or snapshots. */
  readonly url: string;
  /** Internal only, as secret as `url`: the configured WebSocket URL. */
  readonly wsUrl: string | undefined;
  /** Internal only: which host circuit breaker the endpoint is under (host and port, or its `operator`), see `breakerKeyOf`. */
  readonly breakerKey: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly operator: string;
  /** Concurrency limit of the endpoint, shared by all its roles; undefined = unlimited (or learned). */
  readonly maxConcurrentRequests: number | undefined;
  /** `maxConcurrentRequests: 'auto'`: the learned concurrency's bounds (undefined for a fixed limit or none). */
  readonly learnedConcurrency: GradientLimitSettings | undefined;
  /**
   * Connections the executor may open to this endpoint's origin: enough for every permit
   * admission can grant to every endpoint on that origin (undefined = unlimited).
   */
  readonly originConnections: number | undefined;
  readonly roles: readonly NormalizedRole[];
  /** Whether the pool's `expectedChain` check applies (`verifyChain`, default true). */
  readonly verifyChain: boolean;
  /** Declared archival (`archival`); undefined: learned from answers. */
  readonly archival: boolean | undefined;
  /** The provider plan its calls' credits count against (`plan`, `cost`); undefined: calls are not priced. */
  readonly plan: CreditPlan | undefined;
}

/**
 * The id an endpoint gets when it has none: `<operator>-<index>` (`helius-rpc.com-0`,
 * `127.0.0.1-1`), never built from the full host or path, which may hold keys.
 */
export function defaultEndpointId(url: string, index: number, operator?: string): string {
  return `${operatorOf(url, operator)}-${index}`;
}

function formatPath(path: readonly PropertyKey[], prefix = ''): string {
  let out = prefix;
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? '(root)' : out;
}

export function invalidConfig(issues: readonly ConfigIssue[]): TransportError<'INVALID_CONFIG'> {
  const lines = issues.map((issue) => `${issue.path}: ${issue.message}`);
  return new TransportError('INVALID_CONFIG', `Invalid pool configuration: ${lines.join('; ')}`, {
    context: { issues },
  });
}

/** Zod issues as config issues: `path: message`, values never echoed (they may be secrets). */
export function configIssuesOf(error: z.core.$ZodError, prefix = ''): ConfigIssue[] {
  return error.issues.map((issue) => {
    const keys = issue.code === 'unrecognized_keys' ? ` (${issue.keys.join(', ')})` : '';
    const message = issue.code === 'unrecognized_keys' ? `unknown option${keys}` : issue.message;
    return { path: formatPath(issue.path, prefix), message };
  });
}

function minDefined(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

/** `'auto'` or `{ auto: … }` as the learned rate's bounds; undefined for a fixed rate or none. */
export function learnedRateOf(rate: RoleSettings['requestsPerSecond']): LearnedRateSettings | undefined {
  if (rate === undefined || typeof rate === 'number') return undefined;
  const auto = rate === 'auto' ? {} : rate.auto;
  const minRps = auto.min ?? Math.min(DEFAULT_LEARNED_RATE.minRps, auto.max ?? Infinity);
  const maxRps = auto.max ?? Math.max(DEFAULT_LEARNED_RATE.maxRps, minRps);
  return { minRps, maxRps, startRps: Math.min(maxRps, Math.max(minRps, auto.start ?? DEFAULT_LEARNED_RATE.startRps)) };
}

/** `'auto'` or `{ auto: … }` as the learned concurrency's bounds; undefined for a fixed limit or none. */
function learnedConcurrencyOf(limit: EndpointConfig['maxConcurrentRequests']): GradientLimitSettings | undefined {
  if (limit === undefined || typeof limit === 'number') return undefined;
  const auto = limit === 'auto' ? {} : limit.auto;
  const min = auto.min ?? Math.min(DEFAULT_GRADIENT_LIMIT.min, auto.max ?? Infinity);
  const max = auto.max ?? Math.max(DEFAULT_GRADIENT_LIMIT.max, min);
  return { min, max, start: Math.min(max, Math.max(min, auto.start ?? DEFAULT_GRADIENT_LIMIT.start)) };
}

function resolveRole(endpointId: string, kind: RequestKind, base: RoleSettings, override: RoleSettings | undefined, issues: ConfigIssue[], path: string): NormalizedRole {
  const pick = <K extends keyof RoleSettings>(key: K): RoleSettings[K] => override?.[key] ?? base[key];
  const rate = pick('requestsPerSecond');
  const learnedRate = learnedRateOf(rate);
  const requestsPerSecond = typeof rate === 'number' ? rate : undefined;
  // A role that sets its own rate gets its own default burst, not the endpoint's.
  const burstCapacity = override?.requestsPerSecond !== undefined ? override.burstCapacity : pick('burstCapacity');
  if (learnedRate !== undefined && burstCapacity !== undefined && !issues.some((issue) => issue.path === `${path}.burstCapacity`)) {
    // Silently ignoring it would hide a misread; a learned rate's burst follows the rate.
    issues.push({ path: `${path}.burstCapacity`, message: "must not be set with requestsPerSecond 'auto' (its burst is one second of the learned rate)" });
  }
  return {
    endpointId,
    kind,
    tier: pick('tier') ?? 0,
    requestsPerSecond,
    learnedRate,
    // One second of RPS, but never below one token, so a 0.5 RPS role can still admit.
    burstCapacity: requestsPerSecond === undefined ? undefined : (burstCapacity ?? Math.max(1, requestsPerSecond)),
    maxConcurrentRequests: minDefined(override?.maxConcurrentRequests, base.maxConcurrentRequests),
    requestTimeoutMs: pick('requestTimeoutMs') ?? DEFAULT_REQUEST_TIMEOUT_MS,
    // A learned rate answers a rate limit by lowering itself; a pause on top would cost a second of traffic per 429.
    pauseAfterRateLimitMs: pick('pauseAfterRateLimitMs') ?? (learnedRate === undefined ? DEFAULT_RATE_LIMIT_PAUSE_MS : 0),
  };
}

/**
 * The method table's `consensus`, by method (undefined when no entry asks for it). A method
 * that is not an idempotent read cannot have it: a send is never sent to several nodes.
 */
export function methodConsensusOf(options: HttpTransportPoolOptions): ReadonlyMap<string, ConsensusOptions> | undefined {
  const methods = options.methods ?? {};
  const issues: ConfigIssue[] = [];
  const table = new Map<string, ConsensusOptions>();
  for (const method of Object.keys(methods)) {
    const consensus = methods[method]?.consensus;
    if (consensus === undefined) continue;
    if (classifyMethod(method, methods).retryClass !== 'idempotent') {
      issues.push({ path: `methods.${method}.consensus`, message: 'consensus is for idempotent reads: a send is never sent to several nodes' });
    }
    table.set(method, consensus);
  }
  if (issues.length > 0) throw invalidConfig(issues);
  return table.size === 0 ? undefined : table;
}

/**
 * Validates pool options and resolves every endpoint into roles. Throws `INVALID_CONFIG`
 * naming each bad field's path (`endpoints[2].requestsPerSecond: must be > 0`) before
 * anything is sent.
 */
export function normalizeEndpoints(options: HttpTransportPoolOptions): NormalizedEndpoint[] {
  const parsed = poolConfigSchema.safeParse(options, ENGLISH_MESSAGES);
  if (!parsed.success) throw invalidConfig(configIssuesOf(parsed.error));

  const issues: ConfigIssue[] = [];
  const retry = options.retry;
  if (retry?.initialBackoffMs !== undefined && retry.maxBackoffMs !== undefined && retry.maxBackoffMs < retry.initialBackoffMs) {
    issues.push({ path: 'retry.maxBackoffMs', message: 'must be >= retry.initialBackoffMs' });
  }

  const seen = new Map<string, number>();
  const endpoints = options.endpoints.map((endpoint, index): NormalizedEndpoint => {
    const operator = operatorOf(endpoint.url, endpoint.operator);
    const id = endpoint.id ?? defaultEndpointId(endpoint.url, index, endpoint.operator);
    const previous = seen.get(id);
    if (previous !== undefined) {
      issues.push({ path: `endpoints[${index}].id`, message: `duplicate endpoint id '${id}' (also endpoints[${previous}])` });
    }
    seen.set(id, index);

    const learnedConcurrency = learnedConcurrencyOf(endpoint.maxConcurrentRequests);
    const fixedConcurrency = typeof endpoint.maxConcurrentRequests === 'number' ? endpoint.maxConcurrentRequests : undefined;
    // A role's own cap stays under a fixed endpoint limit; under a learned one only its own number caps it.
    const { maxConcurrentRequests: _endpointLimit, ...shared } = endpoint;
    const roleBase: RoleSettings = fixedConcurrency === undefined ? shared : { ...shared, maxConcurrentRequests: fixedConcurrency };
    const roleKinds = Object.keys(endpoint.roles ?? {});
    const kinds = endpoint.kinds ?? [...new Set([...DEFAULT_KINDS, ...roleKinds])];
    for (const kind of roleKinds) {
      if (!kinds.includes(kind)) {
        issues.push({ path: `endpoints[${index}].roles.${kind}`, message: `kind '${kind}' is not in endpoints[${index}].kinds` });
      }
    }
    const roles = [...new Set(kinds)].map((kind) => {
      const override = endpoint.roles?.[kind];
      return resolveRole(id, kind, roleBase, override, issues, override?.burstCapacity !== undefined ? `endpoints[${index}].roles.${kind}` : `endpoints[${index}]`);
    });
    return {
      id,
      index,
      url: endpoint.url,
      wsUrl: endpoint.wsUrl,
      breakerKey: breakerKeyOf(endpoint.url, endpoint.operator),
      headers: endpoint.headers ?? {},
      operator,
      maxConcurrentRequests: fixedConcurrency,
      learnedConcurrency,
      originConnections: undefined,
      roles,
      verifyChain: endpoint.verifyChain ?? true,
      archival: endpoint.archival,
      plan: resolveCreditPlan(endpoint, `endpoints[${index}]`, issues),
    };
  });

  if (issues.length > 0) throw invalidConfig(issues);
  // One undici pool per origin serves every endpoint on it: it must hold all their permits.
  const connectionsByOrigin = new Map<string, number | undefined>();
  for (const endpoint of endpoints) {
    const origin = new URL(endpoint.url).origin;
    const sum = connectionsByOrigin.has(origin) ? connectionsByOrigin.get(origin) : 0;
    // A learned concurrency may reach its ceiling: the origin must hold that many connections.
    const permits = endpoint.maxConcurrentRequests ?? endpoint.learnedConcurrency?.max;
    connectionsByOrigin.set(origin, sum === undefined || permits === undefined ? undefined : sum + permits);
  }
  return endpoints.map((endpoint) => ({ ...endpoint, originConnections: connectionsByOrigin.get(new URL(endpoint.url).origin) }));
}
