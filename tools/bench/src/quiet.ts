export const settle = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until this process has been idle for a moment (at most 15 s): V8 keeps optimising the
 * runtimes' WebAssembly in background threads for seconds after they load, which would otherwise
 * be charged to whichever runtime runs meanwhile.
 */
export async function untilQuiet(): Promise<void> {
  const started = performance.now();
  while (performance.now() - started < 15_000) {
    const before = process.cpuUsage();
    await settle(250);
    const used = process.cpuUsage(before);
    if ((used.user + used.system) / 1000 < 25) return;
  }
}

export async function timeIt<T>(f: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const r = await f();
  return [r, performance.now() - t];
}
