/** Arenas for concurrent runs: a run takes a free slot or queues until one is returned. */
export interface SlotPool {
  acquire(): Promise<number>;
  /** A free slot now, or undefined when every slot is in use (synchronous runs cannot queue). */
  tryAcquire(): number | undefined;
  release(slot: number): void;
  /** Rejects every queued run (used by release()). */
  close(reason: Error): void;
}

export function createSlotPool(count: number): SlotPool {
  const free = Array.from({ length: count }, (_, i) => count - 1 - i);
  const waiting: { resolve: (slot: number) => void; reject: (e: Error) => void }[] = [];
  let closed: Error | undefined;
  return {
    acquire() {
      if (closed) return Promise.reject(closed);
      const slot = free.pop();
      if (slot !== undefined) return Promise.resolve(slot);
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
    tryAcquire() {
      if (closed) throw closed;
      return free.pop();
    },
    release(slot) {
      const next = waiting.shift();
      if (next) next.resolve(slot);
      else free.push(slot);
    },
    close(reason) {
      closed = reason;
      for (const w of waiting.splice(0)) w.reject(reason);
    },
  };
}
