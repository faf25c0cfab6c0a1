import * as z from 'zod/mini';

/**
 * `schema`, then `fn` on what it parsed: classic zod's `schema.transform(fn)`, in zod/mini's
 * terms (a pipe into a transform), with the input typed from the schema.
 */
export function transformed<S extends z.ZodMiniType, O>(schema: S, fn: (value: z.output<S>, ctx: z.core.ParsePayload) => O) {
  return z.pipe(schema, z.transform(fn));
}
