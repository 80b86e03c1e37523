/**
 * A timer-drift probe of the calling thread's event loop: a 1 ms interval notes the longest time
 * between two of its ticks (and from the start to the first, and the last to the stop). A loop
 * blocked for 30 ms shows as a ~30 ms gap. Started and stopped around each measured run, so time
 * spent in other runtimes is never charged to it (perf_hooks' monitorEventLoopDelay, re-enabled,
 * counts the time it was disabled as one delay).
 */
export function probeEventLoop(): { stop(): number } {
  let last = performance.now();
  let longest = 0;
  const tick = (): void => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  };
  const timer = setInterval(tick, 1);
  return {
    stop() {
      tick();
      clearInterval(timer);
      return longest;
    },
  };
}
