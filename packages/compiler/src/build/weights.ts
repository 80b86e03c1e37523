import type { Graph } from '@tsge/metadef';
import { ATTR_VALUE, CONST, attr, constValueOf, createTensorDesc } from '@tsge/metadef';
import { alignUp } from '../graph-utils.js';
import type { WeightSlot } from './plan-graph.js';

export interface WeightsLayout {
  readonly bytes: Uint8Array;
  readonly slots: ReadonlyMap<string, WeightSlot>;
}

/** Lays out the data of every Const node of the root graph, 64-byte aligned (strings stay in the graph). */
export function layoutWeights(graph: Graph): WeightsLayout {
  const slots = new Map<string, WeightSlot>();
  const chunks: [number, Uint8Array][] = [];
  let end = 0;
  for (const node of graph.nodes) {
    if (node.type !== CONST) continue;
    const t = constValueOf(node);
    if (!t || Array.isArray(t.data)) continue;
    const typed = t.data as Exclude<typeof t.data, string[]>;
    const data = new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);
    const offset = alignUp(end);
    slots.set(node.name, { offset, bytes: data.length });
    chunks.push([offset, data]);
    end = offset + data.length;
  }
  const bytes = new Uint8Array(alignUp(end));
  for (const [offset, data] of chunks) bytes.set(data, offset);
  return { bytes, slots };
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
