/**
 * How long a worker polls before it sleeps on a futex. Waking a sleeping thread costs from tens of
 * microseconds to milliseconds (more after idle periods, and in virtual machines), paid at every
 * tile job and cross-stream event of a run; a short spin bridges the gaps between kernels, and an
 * idle worker still sleeps soon after a run ends.
 */
export const SPIN_MS = 1;

/**
 * Waits while `words[index]` equals `value`: polls for up to `SPIN_MS` (calling `poll`, which may do
 * useful work and return true to stop waiting), then sleeps with `Atomics.wait`.
 */
export function spinThenWait(words: Int32Array, index: number, value: number, poll?: () => boolean): void {
  const end = performance.now() + SPIN_MS;
  let spins = 0;
  while (Atomics.load(words, index) === value) {
    if (poll?.()) return;
    // performance.now() costs more than a load (and allocates its result): look at the clock every 1024 polls
    if ((++spins & 1023) === 0 && performance.now() > end) {
      Atomics.wait(words, index, value);
      return;
    }
  }
}
