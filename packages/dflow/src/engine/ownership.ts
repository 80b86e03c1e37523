import type { FlowValue } from '../message.js';

/**
 * Which values may be moved (transferred) to a worker instead of copied: those a worker produced,
 * so the engine owns their buffers, and that only one consumer holds. Values the user fed are
 * never moved: the caller still owns them.
 */
const movable = new WeakSet<object>();
const shared = new WeakSet<object>();

export function markMovable(value: FlowValue): void {
  movable.add(value);
}
/** Called when a value goes to more than one consumer. */
export function markShared(value: FlowValue): void {
  shared.add(value);
}
export function isMovable(value: FlowValue): boolean {
  return movable.has(value) && !shared.has(value);
}
