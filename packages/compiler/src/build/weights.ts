import type { Graph } from '@tsge/metadef';
import { ATTR_VALUE, CONST, attr, constValueOf, createTensorDesc, numberToBfloat16, numberToFloat16 } from '@tsge/metadef';
import { WEIGHT_SPAN, type WeightStorage } from '@tsge/om';
import { alignUp } from '../graph-utils.js';
import { STORAGE_DTYPE } from '../passes/precision-storage.js';
import type { WeightSlot } from './plan-graph.js';

export interface WeightsLayout {
  /** WEIGHTS as stored in the file. */
  readonly bytes: Uint8Array;
  /** Bytes of the weights in device memory (`bytes.length` unless some are stored narrow). */
  readonly deviceBytes: number;
  /** Device-memory slots, the layout every weights TensorRef and `_weight_offset` use. */
  readonly slots: ReadonlyMap<string, WeightSlot>;
  /** How the reader widens narrow constants at load; absent when all are stored as computed on. */
  readonly storage?: WeightStorage;
}

/** A float32 Const's values as float16 or bfloat16 bits (round to nearest even). */
function narrow(data: Float32Array, dtype: 'float16' | 'bfloat16'): Uint8Array {
  const bits = new Uint16Array(data.length);
  const to = dtype === 'float16' ? numberToFloat16 : numberToBfloat16;
  for (let i = 0; i < data.length; i++) bits[i] = to(data[i] as number);
  return new Uint8Array(bits.buffer);
}

/**
 * Lays out the data of every Const node of the root graph, 64-byte aligned (strings stay in the
 * graph). Constants marked `_storage_dtype` (precision modes) are stored in that type: WEIGHTS then
 * has its own layout, and a table says where each constant goes, widened, in device memory.
 */
export function layoutWeights(graph: Graph): WeightsLayout {
  const slots = new Map<string, WeightSlot>();
  const chunks: [number, Uint8Array][] = [];
  const spans: [number, number, number, number][] = [];
  let narrowed = false;
  let end = 0;
  let storedEnd = 0;
  for (const node of graph.nodes) {
    if (node.type !== CONST) continue;
    const t = constValueOf(node);
    if (!t || Array.isArray(t.data)) continue;
    const typed = t.data as Exclude<typeof t.data, string[]>;
    const data = new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);
    const offset = alignUp(end);
    slots.set(node.name, { offset, bytes: data.length });
    end = offset + data.length;
    const mark = node.opDesc.attrs.get(STORAGE_DTYPE);
    const dtype = mark?.kind === 'dtype' && (mark.value === 'float16' || mark.value === 'bfloat16') ? mark.value : undefined;
    const stored = dtype && typed instanceof Float32Array ? narrow(typed, dtype) : data;
    const at = alignUp(storedEnd);
    chunks.push([at, stored]);
    storedEnd = at + stored.length;
    if (stored !== data) narrowed = true;
    spans.push([
      at,
      offset,
      stored === data ? data.length : typed.length,
      stored === data ? WEIGHT_SPAN.copy : WEIGHT_SPAN[dtype as 'float16'],
    ]);
  }
  const bytes = new Uint8Array(alignUp(narrowed ? storedEnd : end));
  for (const [offset, data] of chunks) bytes.set(data, offset);
  const deviceBytes = alignUp(end);
  if (!narrowed) return { bytes, deviceBytes, slots };
  return { bytes, deviceBytes, slots, storage: { deviceBytes, spans } };
}

/** Replaces Const data by a tensor desc plus `_weight_offset`/`_weight_bytes` (the .om contract). */
export function stripConstValues(graph: Graph, slots: ReadonlyMap<string, WeightSlot>): void {
  for (const node of graph.nodes) {
    const slot = slots.get(node.name);
    if (node.type !== CONST || !slot) continue;
    const t = constValueOf(node);
    if (!t) continue;
    node.opDesc.attrs.set(ATTR_VALUE, attr.tensorDesc(createTensorDesc(t.type, t.dims)));
    node.opDesc.attrs.set('_weight_offset', attr.int(slot.offset));
    node.opDesc.attrs.set('_weight_bytes', attr.int(slot.bytes));
  }
}
