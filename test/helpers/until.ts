/** Polls `check` every 5 ms of real time until true, at most `timeoutMs` (for what only real time can bring: processes, sockets). */
export async function until(check: () => boolean, timeoutMs = 5_000, what = 'condition'): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
