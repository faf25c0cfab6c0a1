import * as z from 'zod';
import { healthSettingsSchema } from '../health/config.js';
import { subscriptionSettingsSchema, wsUrlSchema } from '../subscriptions/settings.js';

/** An HTTP header name (an RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Characters no header value may hold: they would split or end the header on the wire. */
const FORBIDDEN_IN_HEADER_VALUE = /[\r\n\0]/;

const positive = (what = 'must be > 0') => z.number({ error: 'must be a number' }).positive(what).finite('must be finite');
const nonNegative = () => z.number({ error: 'must be a number' }).nonnegative('must be >= 0').finite('must be finite');
const positiveInt = () => z.number({ error: 'must be a number' }).int('must be an integer').positive('must be > 0');

/** Admission settings of one role (one endpoint serving one request kind). */
export const roleSettingsSchema = z
  .object({
    tier: z.number().int('must be an integer').nonnegative('must be >= 0').optional(),
    requestsPerSecond: positive().optional(),
    burstCapacity: z.number().finite('must be finite').min(1, 'must be >= 1').optional(),
    maxConcurrentRequests: positiveInt().optional(),
    requestTimeoutMs: positive().optional(),
    pauseAfterRateLimitMs: nonNegative().optional(),
  })
  .strict();

const httpUrl = z.string({ error: 'must be a string' }).refine(
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
);

const kindName = z.string().min(1, 'must not be empty');

export const endpointSchema = roleSettingsSchema.extend({
  id: z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters').optional(),
  url: httpUrl,
  wsUrl: wsUrlSchema.optional(),
  headers: z
    .record(
      z.string().regex(HEADER_NAME, { error: 'header names must be HTTP tokens' }),
      // The message never shows the value: it may be a key.
      z.string({ error: 'header values must be strings' }).refine((value) => !FORBIDDEN_IN_HEADER_VALUE.test(value), {
        error: 'header values must not contain CR, LF or NUL (the value is not shown: it may be a secret)',
      }),
    )
    .optional(),
  operator: z.string().min(1, 'must not be empty').optional(),
  kinds: z.array(kindName).min(1, 'must not be empty').optional(),
  roles: z.record(kindName, roleSettingsSchema).optional(),
  verifyChain: z.boolean({ error: 'must be a boolean' }).optional(),
  archival: z.boolean({ error: 'must be a boolean' }).optional(),
  maxBatchSize: positiveInt().optional(),
});

export const retrySettingsSchema = z
  .object({
    maxRetries: z.number().int('must be an integer').min(0, 'must be >= 0').max(100, 'must be <= 100').optional(),
    initialBackoffMs: nonNegative().optional(),
    maxBackoffMs: nonNegative().optional(),
  })
  .strict();

export const methodEntrySchema = z
  .object({
    kind: kindName,
    retryClass: z.enum(['idempotent', 'never-after-dispatch', 'not-applicable'], {
      error: "must be 'idempotent', 'never-after-dispatch' or 'not-applicable'",
    }),
  })
  .strict();

const objectWith = (keys: readonly string[], what: string) =>
  z.custom<object>(
    (value) => typeof value === 'object' && value !== null && keys.every((k) => typeof (value as Record<string, unknown>)[k] === 'function'),
    { message: what },
  );

/**
 * `true`/`false`, or an object checked field by field — a plain union would report any bad
 * field as "must be a boolean or …" without naming it.
 */
function booleanOr<T extends z.ZodType>(object: T, shape: string) {
  return z.custom<boolean | z.infer<T>>().superRefine((value, ctx) => {
    if (typeof value === 'boolean') return;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      ctx.addIssue({ code: 'custom', message: `must be a boolean or ${shape}` });
      return;
    }
    const parsed = object.safeParse(value);
    if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: issue.path } as never);
  });
}

export const poolConfigSchema = z
  .object({
    endpoints: z.array(endpointSchema.strict(), { error: 'must be an array' }).min(1, 'must contain at least one endpoint'),
    retry: retrySettingsSchema.optional(),
    concentration: z.object({ maxOperatorShare: z.number().finite('must be finite').optional() }).strict().optional(),
    reputation: z.union([z.literal(false), z.record(z.string(), z.unknown())]).optional(),
    reconcileSends: booleanOr(z.object({ windowMs: positive().optional(), intervalMs: positive().optional() }).strict(), '{ windowMs?, intervalMs? }').optional(),
    expectedChain: z
      .object({
        genesisHash: z.string({ error: 'must be a string' }).optional(),
        chainId: z
          .union([z.number().int().positive().max(Number.MAX_SAFE_INTEGER), z.bigint().positive()], {
            error: 'must be a positive integer (number or bigint)',
          })
          .optional(),
      })
      .strict()
      .refine((value) => value.genesisHash !== undefined || value.chainId !== undefined, { message: 'must set genesisHash or chainId' })
      .optional(),
    chain: z.enum(['solana', 'evm', 'generic'], { error: "must be 'solana', 'evm' or 'generic'" }).optional(),
    methods: z.record(z.string().min(1), methodEntrySchema).optional(),
    maxResponseBytes: positiveInt().optional(),
    timeoutMs: positive().optional(),
    hedge: z
      .union([
        z.literal(false),
        z
          .object({
            delayMs: z.union([z.literal('auto'), nonNegative()]).optional(),
            maxHedges: z.literal(1, { error: 'only 1 hedge per call is supported' }).optional(),
            budgetRatio: z.number({ error: 'must be a number' }).min(0, 'must be >= 0').max(1, 'must be <= 1').optional(),
            quantile: z.number({ error: 'must be a number' }).gt(0, 'must be > 0').lt(1, 'must be < 1').optional(),
            minDelayMs: nonNegative().optional(),
            maxDelayMs: positive().optional(),
          })
          .strict(),
      ])
      .optional(),
    balance: z
      .union([
        z.literal(false),
        z
          .object({
            exploreRatio: z.number({ error: 'must be a number' }).min(0, 'must be >= 0').max(1, 'must be <= 1').optional(),
            decayMs: positive().optional(),
          })
          .strict(),
      ])
      .optional(),
    health: z.union([z.literal(false), healthSettingsSchema]).optional(),
    coalesce: z.boolean({ error: 'must be a boolean' }).optional(),
    batch: z
      .union([z.literal(false), z.object({ waitMs: nonNegative().optional(), maxSize: positiveInt().optional() }).strict()], {
        error: 'must be false or { waitMs?, maxSize? }',
      })
      .optional(),
    subscriptions: subscriptionSettingsSchema.optional(),
    executor: objectWith(['execute', 'close'], 'must have execute() and close()').optional(),
    logger: objectWith(['debug', 'info', 'warn', 'error'], 'must have debug(), info(), warn() and error()').optional(),
    fleet: objectWith(['join'], 'must be a fleet, e.g. createRedisFleet() from sturdy-rpc/fleet (it has join())').optional(),
    clock: objectWith(['now', 'wallNow', 'setTimer'], 'must have now(), wallNow() and setTimer()').optional(),
    random: z.custom<() => number>((value) => typeof value === 'function', { message: 'must be a function' }).optional(),
  })
  .strict();
