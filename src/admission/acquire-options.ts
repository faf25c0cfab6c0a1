/** Options of `acquireForMethod` / `acquireForRequestKind`. */
export interface AcquireOptions {
  /** Deadline for admission, in ms. @default the pool's default call deadline (`timeoutMs`) */
  readonly timeoutMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Pin to one endpoint id. */
  readonly endpoint?: string | undefined;
}

/** @internal Endpoints that failed this call, and until when they may not be retried (the backoff). */
export interface RetryAvoidance {
  readonly endpoints: ReadonlySet<string>;
  readonly untilMs: number;
}
