import * as z from 'zod/mini';
import { ENGLISH_MESSAGES } from './english-messages.js';
import { healthSettingsSchema } from '../health/config.js';
import { subscriptionSettingsSchema, wsUrlSchema } from '../subscriptions/settings.js';

/** An HTTP header name (an RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Characters no header value may hold: they would split or end the header on the wire. */
const FORBIDDEN_IN_HEADER_VALUE = /[\r\n\0]/;

// zod 4 numbers are finite already: `Infinity` and `NaN` fail the type check ('must be a number').
const positive = (what = 'must be > 0') => z.number({ error: 'must be a number' }).check(z.positive(what));
const nonNegative = () => z.number({ error: 'must be a number' }).check(z.nonnegative('must be >= 0'));
const positiveInt = () => z.number({ error: 'must be a number' }).check(z.int('must be an integer'), z.positive('must be > 0'));

const learnedConcurrencySchema = z
  .strictObject({ min: z.optional(positiveInt()), max: z.optional(positiveInt()), start: z.optional(positiveInt()) })
  .check(z.refine((value) => value.min === undefined || value.max === undefined || value.min <= value.max, { message: 'min must be <= max' }));

/** An endpoint's concurrency: a count, `'auto'` or `{ auto: { min?, max?, start? } }`, checked field by field so a bad bound is named. */
const concurrencySchema = z.custom<number | 'auto' | { auto: z.infer<typeof learnedConcurrencySchema> }>().check(
  z.superRefine((value, ctx) => {
    if (value === 'auto') return;
    if (typeof value !== 'number' && (typeof value !== 'object' || value === null || Array.isArray(value))) {
      ctx.addIssue({ code: 'custom', message: "must be an integer > 0, 'auto' or { auto: { min?, max?, start? } }" });
      return;
    }
    const parsed = (typeof value === 'object' ? z.strictObject({ auto: learnedConcurrencySchema }) : positiveInt()).safeParse(value, ENGLISH_MESSAGES);
    if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: issue.path } as never);
  }),
);

const learnedRateSchema = z
  .strictObject({ min: z.optional(positive()), max: z.optional(positive()), start: z.optional(positive()) })
  .check(z.refine((value) => value.min === undefined || value.max === undefined || value.min <= value.max, { message: 'min must be <= max' }));

/** A rate, `'auto'` or `{ auto: { min?, max?, start? } }`, checked field by field so a bad bound is named. */
const rateSchema = z.custom<number | 'auto' | { auto: z.infer<typeof learnedRateSchema> }>().check(
  z.superRefine((value, ctx) => {
    if (value === 'auto') return;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const parsed = z.strictObject({ auto: learnedRateSchema }).safeParse(value, ENGLISH_MESSAGES);
      if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: issue.path } as never);
      return;
    }
    // A number keeps the messages of a plain rate.
    if (typeof value !== 'number') ctx.addIssue({ code: 'custom', message: "must be a number > 0, 'auto' or { auto: { min?, max?, start? } }" });
    else if (!Number.isFinite(value)) ctx.addIssue({ code: 'custom', message: 'must be a number' });
    else if (!(value > 0)) ctx.addIssue({ code: 'custom', message: 'must be > 0' });
  }),
);

/** Admission settings of one role (one endpoint serving one request kind). */
export const roleSettingsSchema = z.strictObject({
  tier: z.optional(z.number().check(z.int('must be an integer'), z.nonnegative('must be >= 0'))),
  requestsPerSecond: z.optional(rateSchema),
  burstCapacity: z.optional(z.number().check(z.minimum(1, 'must be >= 1'))),
  maxConcurrentRequests: z.optional(positiveInt()),
  requestTimeoutMs: z.optional(positive()),
  pauseAfterRateLimitMs: z.optional(nonNegative()),
});

const httpUrl = z.string({ error: 'must be a string' }).check(
  z.refine(
    (value) => {
      try {
        const { protocol } = new URL(value);
        return protocol === 'http:' || protocol === 'https:';
      } catch {
        return false;
      }
    },
    // Never echo the value: URLs carry keys.
    { message: 'must be an http(s) URL' },
  ),
);

const kindName = z.string().check(z.minLength(1, 'must not be empty'));

export const endpointSchema = z.extend(roleSettingsSchema, {
  maxConcurrentRequests: z.optional(concurrencySchema),
  id: z.optional(z.string().check(z.minLength(1, 'must not be empty'), z.maxLength(128, 'must be at most 128 characters'))),
  url: httpUrl,
  wsUrl: z.optional(wsUrlSchema),
  headers: z.optional(
    z.record(
      z.string().check(z.regex(HEADER_NAME, { error: 'header names must be HTTP tokens' })),
      // The message never shows the value: it may be a key.
      z.string({ error: 'header values must be strings' }).check(
        z.refine((value) => !FORBIDDEN_IN_HEADER_VALUE.test(value), {
          error: 'header values must not contain CR, LF or NUL (the value is not shown: it may be a secret)',
        }),
      ),
    ),
  ),
  operator: z.optional(z.string().check(z.minLength(1, 'must not be empty'))),
  kinds: z.optional(z.array(kindName).check(z.minLength(1, 'must not be empty'))),
  roles: z.optional(z.record(kindName, roleSettingsSchema)),
  verifyChain: z.optional(z.boolean({ error: 'must be a boolean' })),
  archival: z.optional(z.boolean({ error: 'must be a boolean' })),
  maxBatchSize: z.optional(positiveInt()),
  plan: z.optional(
    z.strictObject({
      table: z.optional(
        z.custom<object>(
          (value) => typeof value === 'object' && value !== null && typeof (value as { defaultCost?: unknown }).defaultCost === 'number' && typeof (value as { methods?: unknown }).methods === 'object',
          { message: "must be a credit table (creditTables.alchemy, … from 'sturdy-rpc/credits')" },
        ),
      ),
      creditsPerSecond: z.optional(positive()),
      creditsPerMonth: z.optional(positive()),
      onExhausted: z.optional(z.enum(['refuse', 'continue'], { error: "must be 'refuse' or 'continue'" })),
    }),
  ),
  cost: z.optional(z.record(z.string().check(z.minLength(1, 'method names must not be empty')), nonNegative())),
});

export const retrySettingsSchema = z.strictObject({
  maxRetries: z.optional(z.number().check(z.int('must be an integer'), z.minimum(0, 'must be >= 0'), z.maximum(100, 'must be <= 100'))),
  initialBackoffMs: z.optional(nonNegative()),
  maxBackoffMs: z.optional(nonNegative()),
});

export const consensusSchema = z.strictObject({
  operators: z.union([z.literal(2), z.literal(3)], { error: 'must be 2 or 3' }),
});

export const methodEntrySchema = z.strictObject({
  kind: z.optional(kindName),
  retryClass: z.optional(
    z.enum(['idempotent', 'never-after-dispatch', 'not-applicable'], {
      error: "must be 'idempotent', 'never-after-dispatch' or 'not-applicable'",
    }),
  ),
  consensus: z.optional(consensusSchema),
});

const objectWith = (keys: readonly string[], what: string) =>
  z.custom<object>(
    (value) => typeof value === 'object' && value !== null && keys.every((k) => typeof (value as Record<string, unknown>)[k] === 'function'),
    { message: what },
  );

/**
 * `true`/`false`, or an object checked field by field — a plain union would report any bad
 * field as "must be a boolean or …" without naming it.
 */
function booleanOr<T extends z.ZodMiniType>(object: T, shape: string) {
  return z.custom<boolean | z.infer<T>>().check(z.superRefine((value, ctx) => {
    if (typeof value === 'boolean') return;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      ctx.addIssue({ code: 'custom', message: `must be a boolean or ${shape}` });
      return;
    }
    const parsed = object.safeParse(value, ENGLISH_MESSAGES);
    if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: issue.path } as never);
  }));
}

export const poolConfigSchema = z.strictObject({
  // endpointSchema is strict already: it extends the strict role settings.
  endpoints: z.array(endpointSchema, { error: 'must be an array' }).check(z.minLength(1, 'must contain at least one endpoint')),
  retry: z.optional(retrySettingsSchema),
  concentration: z.optional(z.strictObject({ maxOperatorShare: z.optional(z.number()) })),
  reputation: z.optional(z.union([z.literal(false), z.record(z.string(), z.unknown())])),
  reconcileSends: z.optional(booleanOr(z.strictObject({ windowMs: z.optional(positive()), intervalMs: z.optional(positive()) }), '{ windowMs?, intervalMs? }')),
  expectedChain: z.optional(
    z
      .strictObject({
        genesisHash: z.optional(z.string({ error: 'must be a string' })),
        chainId: z.optional(
          z.union([z.number().check(z.int(), z.positive(), z.maximum(Number.MAX_SAFE_INTEGER)), z.bigint().check(z.positive())], {
            error: 'must be a positive integer (number or bigint)',
          }),
        ),
      })
      .check(z.refine((value) => value.genesisHash !== undefined || value.chainId !== undefined, { message: 'must set genesisHash or chainId' })),
  ),
  chain: z.optional(z.enum(['solana', 'evm', 'generic'], { error: "must be 'solana', 'evm' or 'generic'" })),
  methods: z.optional(z.record(z.string().check(z.minLength(1)), methodEntrySchema)),
  maxResponseBytes: z.optional(positiveInt()),
  timeoutMs: z.optional(positive()),
  hedge: z.optional(
    z.union([
      z.literal(false),
      z.strictObject({
        delayMs: z.optional(z.union([z.literal('auto'), nonNegative()])),
        maxHedges: z.optional(z.literal(1, { error: 'only 1 hedge per call is supported' })),
        budgetRatio: z.optional(z.number({ error: 'must be a number' }).check(z.minimum(0, 'must be >= 0'), z.maximum(1, 'must be <= 1'))),
        quantile: z.optional(z.number({ error: 'must be a number' }).check(z.gt(0, 'must be > 0'), z.lt(1, 'must be < 1'))),
        minDelayMs: z.optional(nonNegative()),
        maxDelayMs: z.optional(positive()),
      }),
    ]),
  ),
  balance: z.optional(
    z.union([
      z.literal(false),
      z.strictObject({
        exploreRatio: z.optional(z.number({ error: 'must be a number' }).check(z.minimum(0, 'must be >= 0'), z.maximum(1, 'must be <= 1'))),
        decayMs: z.optional(positive()),
      }),
    ]),
  ),
  health: z.optional(z.union([z.literal(false), healthSettingsSchema])),
  coalesce: z.optional(z.boolean({ error: 'must be a boolean' })),
  retryEmpty: z.optional(
    z.union([z.boolean(), z.strictObject({ methods: z.optional(z.record(z.string(), z.boolean())), blockTimeMs: z.optional(positive()) })], {
      error: 'must be a boolean or { methods?, blockTimeMs? }',
    }),
  ),
  integrity: z.optional(
    z.union([z.boolean(), z.strictObject({ reorgWindowBlocks: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(1_000_000))) })], {
      error: 'must be a boolean or { reorgWindowBlocks? }',
    }),
  ),
  cache: z.optional(
    z.union(
      [
        z.literal(false),
        z.strictObject({
          maxBytes: z.optional(positiveInt()),
          maxEntries: z.optional(positiveInt()),
          maxEntryBytes: z.optional(positiveInt()),
          ttl: z.optional(z.strictObject({ unfinalized: z.optional(nonNegative()), realtime: z.optional(nonNegative()) })),
          verify: z.optional(z.enum(['none', 'two-operators'], { error: "must be 'none' or 'two-operators'" })),
          fleet: z.optional(z.union([z.literal(false), z.strictObject({ ttl: z.optional(positiveInt()) })], { error: 'must be false or { ttl? }' })),
        }),
      ],
      { error: 'must be false or { maxBytes?, maxEntries?, maxEntryBytes?, ttl?, verify?, fleet? }' },
    ),
  ),
  batch: z.optional(
    z.union([z.literal(false), z.strictObject({ waitMs: z.optional(nonNegative()), maxSize: z.optional(positiveInt()) })], {
      error: 'must be false or { waitMs?, maxSize? }',
    }),
  ),
  subscriptions: z.optional(subscriptionSettingsSchema),
  executor: z.optional(objectWith(['execute', 'close'], 'must have execute() and close()')),
  logger: z.optional(objectWith(['debug', 'info', 'warn', 'error'], 'must have debug(), info(), warn() and error()')),
  fleet: z.optional(objectWith(['join', 'wire'], 'must be a fleet, e.g. createRedisFleet() from sturdy-rpc/fleet (it has join() and wire())')),
  clock: z.optional(objectWith(['now', 'wallNow', 'setTimer'], 'must have now(), wallNow() and setTimer()')),
  random: z.optional(z.custom<() => number>((value) => typeof value === 'function', { message: 'must be a function' })),
});
