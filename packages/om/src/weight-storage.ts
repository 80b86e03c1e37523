import { float16ToNumber } from '@tsge/metadef';
import type { WeightStorage } from './types.js';
import type { Check } from './validate-json.js';

/** Span kinds of `WeightStorage.spans`: bytes copied, or float16 / bfloat16 values widened to float32. */
export const WEIGHT_SPAN = { copy: 0, float16: 1, bfloat16: 2 } as const;

const MAX_DEVICE_BYTES = 4 * 1024 * 1024 * 1024;
const MAX_SPANS = 10_000_000;

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

/**
 * Whether a weight storage table is one the reader can apply to a WEIGHTS partition of
 * `storedBytes`: every span inside both layouts, widened spans aligned for their element size,
 * device offsets increasing and disjoint.
 */
export function checkWeightStorage(v: unknown, storedBytes: number): Check {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'weightStorage is not an object';
  const { deviceBytes, spans } = v as Record<string, unknown>;
  if (!isCount(deviceBytes) || deviceBytes % 4 !== 0 || deviceBytes > MAX_DEVICE_BYTES) return 'weightStorage.deviceBytes is invalid';
  if (!Array.isArray(spans) || spans.length > MAX_SPANS) return 'weightStorage.spans is not a list';
  let deviceEnd = 0;
  for (const [i, span] of spans.entries()) {
    const what = `weightStorage.spans[${i}]`;
    if (!Array.isArray(span) || span.length !== 4 || !span.every(isCount)) return `${what} is not four counts`;
    const [stored, device, count, kind] = span as [number, number, number, number];
    if (kind !== WEIGHT_SPAN.copy && kind !== WEIGHT_SPAN.float16 && kind !== WEIGHT_SPAN.bfloat16) return `${what} has kind ${kind}`;
    const storedSize = kind === WEIGHT_SPAN.copy ? count : count * 2;
    const deviceSize = kind === WEIGHT_SPAN.copy ? count : count * 4;
    if (kind !== WEIGHT_SPAN.copy && (stored % 2 !== 0 || device % 4 !== 0)) return `${what} is not aligned for its values`;
    if (stored + storedSize > storedBytes) return `${what} reads past the end of WEIGHTS`;
    if (device < deviceEnd) return `${what} overlaps the span before it`;
    deviceEnd = device + deviceSize;
    if (deviceEnd > deviceBytes) return `${what} writes past deviceBytes`;
  }
  return undefined;
}

let halfTable: Float32Array | undefined;
/** float16 bits → float32 value, all 65536 of them (256 KiB, built once). */
function float16Table(): Float32Array {
  if (!halfTable) {
    halfTable = new Float32Array(65536);
    for (let i = 0; i < 65536; i++) halfTable[i] = float16ToNumber(i);
  }
  return halfTable;
}

/** float16 or bfloat16 values of a span, aligned (a copy when the partition is not). */
function u16At(bytes: Uint8Array, offset: number, count: number): Uint16Array {
  const at = bytes.byteOffset + offset;
  if (at % 2 === 0) return new Uint16Array(bytes.buffer, at, count);
  return new Uint16Array(bytes.slice(offset, offset + count * 2).buffer);
}

/** The weights as device memory holds them: WEIGHTS with its narrow spans widened to float32. */
export function widenWeights(stored: Uint8Array, storage: WeightStorage): Uint8Array {
  const device = new Uint8Array(storage.deviceBytes);
  const words = new Uint32Array(device.buffer);
  const floats = new Float32Array(device.buffer);
  for (const [from, to, count, kind] of storage.spans) {
    if (kind === WEIGHT_SPAN.copy) {
      device.set(stored.subarray(from, from + count), to);
      continue;
    }
    const src = u16At(stored, from, count);
    const base = to / 4;
    if (kind === WEIGHT_SPAN.bfloat16) {
      // bfloat16 is the top half of a float32
      for (let i = 0; i < count; i++) words[base + i] = (src[i] as number) << 16;
      continue;
    }
    const table = float16Table();
    for (let i = 0; i < count; i++) floats[base + i] = table[src[i] as number] as number;
  }
  return device;
}
