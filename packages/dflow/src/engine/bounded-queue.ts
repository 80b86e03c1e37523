/** Why a queue operation did not complete. */
export type QueueFailure = 'timeout' | 'closed';

interface Waiter<T> {
  resolve(value: T): void;
  reject(reason: QueueFailure): void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * A FIFO with a fixed capacity: `put` waits while it is full (back-pressure), `take` while it is
 * empty. Both settle in order of arrival; a timeout or `close()` rejects with a QueueFailure.
 */
export class BoundedQueue<T> {
  private readonly items: T[] = [];
  private head = 0;
  private readonly takers: Waiter<T>[] = [];
  private readonly putters: (Waiter<void> & { item: T })[] = [];
  private closed = false;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.items.length - this.head;
  }
  get full(): boolean {
    return this.size >= this.capacity;
  }
  get isClosed(): boolean {
    return this.closed;
  }

  /** Adds at once when there is room; false when full or closed (the caller decides to wait or reject). */
  tryPut(item: T): boolean {
    if (this.closed) return false;
    const taker = this.takers.shift();
    if (taker) {
      clear(taker);
      taker.resolve(item);
      return true;
    }
    if (this.size >= this.capacity) return false;
    this.items.push(item);
    return true;
  }

  put(item: T, timeoutMs?: number): Promise<void> {
    if (this.closed) return Promise.reject('closed' satisfies QueueFailure);
    if (this.tryPut(item)) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter = { item, resolve, reject, timer: undefined as ReturnType<typeof setTimeout> | undefined };
      if (timeoutMs !== undefined && Number.isFinite(timeoutMs))
        waiter.timer = setTimeout(() => {
          remove(this.putters, waiter);
          reject('timeout' satisfies QueueFailure);
        }, timeoutMs);
      this.putters.push(waiter);
    });
  }

  take(timeoutMs?: number): Promise<T> {
    if (this.size > 0) {
      const item = this.items[this.head] as T;
      this.items[this.head] = undefined as T;
      this.head++;
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items.splice(0, this.head);
        this.head = 0;
      }
      this.admitPutter();
      return Promise.resolve(item);
    }
    if (this.closed) return Promise.reject('closed' satisfies QueueFailure);
    const putter = this.putters.shift();
    if (putter) {
      clear(putter);
      putter.resolve();
      return Promise.resolve(putter.item);
    }
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter<T> = { resolve, reject, timer: undefined };
      if (timeoutMs !== undefined && Number.isFinite(timeoutMs))
        waiter.timer = setTimeout(() => {
          remove(this.takers, waiter);
          reject('timeout' satisfies QueueFailure);
        }, timeoutMs);
      this.takers.push(waiter);
    });
  }

  /** Puts an item back at the front (a fetch that timed out part way returns what it took). */
  unshift(item: T): void {
    const taker = this.takers.shift();
    if (taker) {
      clear(taker);
      taker.resolve(item);
      return;
    }
    if (this.head > 0) this.items[--this.head] = item;
    else this.items.unshift(item);
  }

  /** Rejects every waiter; items already queued can still be taken. */
  close(): void {
    this.closed = true;
    for (const w of this.takers.splice(0)) {
      clear(w);
      w.reject('closed');
    }
    for (const w of this.putters.splice(0)) {
      clear(w);
      w.reject('closed');
    }
  }

  private admitPutter(): void {
    const putter = this.putters.shift();
    if (!putter) return;
    clear(putter);
    this.items.push(putter.item);
    putter.resolve();
  }
}

function clear(waiter: { timer: ReturnType<typeof setTimeout> | undefined }): void {
  if (waiter.timer !== undefined) clearTimeout(waiter.timer);
}
function remove<W>(list: W[], item: W): void {
  const i = list.indexOf(item);
  if (i >= 0) list.splice(i, 1);
}
