/** The `track`/`synchronize` part of a device: work registered here is awaited before release. */
export interface WorkTracker {
  track<T>(work: Promise<T>): Promise<T>;
  /** Resolves when every tracked piece of work settled, including work tracked meanwhile. */
  settle(): Promise<void>;
}

export function createWorkTracker(): WorkTracker {
  const pending = new Set<Promise<unknown>>();
  return {
    track(work) {
      pending.add(work);
      const done = (): void => {
        pending.delete(work);
      };
      work.then(done, done);
      return work;
    },
    async settle() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
}
