import { serializeAir } from '@tsge/metadef';
import { crc32 } from './crc32.js';
import {
  FLAG_DYNAMIC,
  FLAG_GEARS,
  HEADER,
  MODEL_NAME_BYTES,
  MODEL_TYPE_CODES,
  OM_FORMAT_VERSION,
  OM_HEADER_SIZE,
  OM_MAGIC,
  PARTITION_CODES,
  PARTITION_ENTRY_SIZE,
  TARGET_BYTES,
  alignUp,
} from './layout.js';
import type { KernelModule, OmWriteInput, PartitionType } from './types.js';
import { type KernelDescription, encodeKernelDescription } from '@tsge/metadef';

/** Name prefix of a KERNELS module that is a kernel description, not WebAssembly. */
export const DESCRIPTION_PREFIX = 'description:';

const encoder = new TextEncoder();

/** Serializes a model to .om bytes: header, partition table, then 64-byte aligned partitions. */
export function writeOm(model: OmWriteInput): Uint8Array {
  const parts: [PartitionType, Uint8Array][] = [
    ['MODEL_DEF', serializeAir(model.graph, { modelName: model.modelName })],
    ['WEIGHTS', model.weights],
    ['TASK_INFO', encoder.encode(JSON.stringify(model.taskInfo))],
    ['KERNELS', encodeKernels([...model.kernels, ...descriptionModules(model.kernelDescriptions ?? [])])],
    ['IO_INFO', encoder.encode(JSON.stringify(model.ioInfo))],
  ];
  const flags = (model.flags.dynamic ? FLAG_DYNAMIC : 0) | (model.flags.gears ? FLAG_GEARS : 0);
  return assembleOm(parts, { modelName: model.modelName, target: model.target, flags, modelType: 'standard' });
}

/** Header, partition table and 64-byte aligned partitions, with the body's checksum. */
export function assembleOm(
  parts: readonly (readonly [PartitionType, Uint8Array])[],
  meta: { modelName: string; target: string; flags: number; modelType: keyof typeof MODEL_TYPE_CODES },
): Uint8Array {
  const tableEnd = OM_HEADER_SIZE + parts.length * PARTITION_ENTRY_SIZE;
  const offsets: number[] = [];
  let cursor = alignUp(tableEnd);
  for (const [, bytes] of parts) {
    offsets.push(cursor);
    cursor = alignUp(cursor + bytes.length);
  }
  const total = cursor;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  parts.forEach(([type, bytes], i) => {
    const entry = OM_HEADER_SIZE + i * PARTITION_ENTRY_SIZE;
    view.setUint32(entry, PARTITION_CODES[type], true);
    view.setBigUint64(entry + 8, BigInt(offsets[i] as number), true);
    view.setBigUint64(entry + 16, BigInt(bytes.length), true);
    out.set(bytes, offsets[i]);
  });
  for (let i = 0; i < OM_MAGIC.length; i++) out[HEADER.magic + i] = OM_MAGIC.charCodeAt(i);
  view.setUint32(HEADER.headerSize, OM_HEADER_SIZE, true);
  view.setUint32(HEADER.formatVersion, OM_FORMAT_VERSION, true);
  view.setUint32(HEADER.flags, meta.flags, true);
  view.setUint32(HEADER.modelType, MODEL_TYPE_CODES[meta.modelType], true);
  view.setBigUint64(HEADER.bodyLength, BigInt(total - OM_HEADER_SIZE), true);
  view.setUint32(HEADER.partitionCount, parts.length, true);
  out.set(fixedString(meta.modelName, MODEL_NAME_BYTES), HEADER.modelName);
  out.set(fixedString(meta.target, TARGET_BYTES), HEADER.target);
  view.setUint32(HEADER.checksum, crc32(out.subarray(OM_HEADER_SIZE)), true);
  return out;
}

/** UTF-8, cut on a character boundary so it fits with a terminating NUL. */
function fixedString(value: string, size: number): Uint8Array {
  let bytes = encoder.encode(value);
  if (bytes.length >= size) {
    let end = size - 1;
    while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end--;
    bytes = bytes.subarray(0, end);
  }
  return bytes;
}

/** Kernel descriptions as KERNELS modules named `description:<index>` holding little-endian int32 words. */
function descriptionModules(descriptions: readonly KernelDescription[]): KernelModule[] {
  return descriptions.map((d, i) => {
    const words = encodeKernelDescription(d);
    const bytes = new Uint8Array(words.length * 4);
    const view = new DataView(bytes.buffer);
    words.forEach((w, j) => {
      view.setInt32(j * 4, w, true);
    });
    return { name: `${DESCRIPTION_PREFIX}${i}`, bytes };
  });
}

/** KERNELS (and FLOW_SUBMODEL): u32 count, then per module u32 name length, name (UTF-8), u32 byte length, bytes. */
export function encodeKernels(kernels: readonly KernelModule[]): Uint8Array {
  const names = kernels.map((k) => encoder.encode(k.name));
  let size = 4;
  kernels.forEach((k, i) => {
    size += 8 + (names[i] as Uint8Array).length + k.bytes.length;
  });
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, kernels.length, true);
  let p = 4;
  kernels.forEach((k, i) => {
    const name = names[i] as Uint8Array;
    view.setUint32(p, name.length, true);
    out.set(name, p + 4);
    p += 4 + name.length;
    view.setUint32(p, k.bytes.length, true);
    out.set(k.bytes, p + 4);
    p += 4 + k.bytes.length;
  });
  return out;
}
