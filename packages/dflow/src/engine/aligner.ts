import type { FlowMessage } from '../message.js';
import { alignmentKey } from '../message.js';
import type { AlignSpec } from '../spec.js';

interface Pending {
  readonly slots: (FlowMessage | undefined)[];
  filled: number;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * Collects the inputs of one alignment group by (transaction, segment). A set that stays
 * incomplete past the timeout, or is the oldest when too many wait, goes to `onMissing`.
 */
export class Aligner {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly width: number,
    private readonly spec: AlignSpec,
    private readonly onMissing: (partial: readonly (FlowMessage | undefined)[]) => void,
  ) {}

  get size(): number {
    return this.pending.size;
  }

  /** Adds the message for slot `slot`; returns the complete set when this was its last missing input. */
  add(slot: number, message: FlowMessage): FlowMessage[] | undefined {
    if (this.width === 1) return [message];
    const key = alignmentKey(message.header);
    let entry = this.pending.get(key);
    if (!entry) {
      if (this.pending.size >= this.spec.maxPending) this.expire(this.pending.keys().next().value as string);
      entry = { slots: new Array(this.width).fill(undefined), filled: 0, timer: undefined };
      if (Number.isFinite(this.spec.timeoutMs)) {
        entry.timer = setTimeout(() => this.expire(key), this.spec.timeoutMs);
        entry.timer.unref?.();
      }
      this.pending.set(key, entry);
    }
    if (entry.slots[slot] === undefined) entry.filled++;
    entry.slots[slot] = message;
    if (entry.filled < this.width) return undefined;
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    this.pending.delete(key);
    return entry.slots as FlowMessage[];
  }

  close(): void {
    for (const entry of this.pending.values()) if (entry.timer !== undefined) clearTimeout(entry.timer);
    this.pending.clear();
  }

  private expire(key: string): void {
    const entry = this.pending.get(key);
    if (!entry) return;
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    this.pending.delete(key);
    this.onMissing(entry.slots);
  }
}
