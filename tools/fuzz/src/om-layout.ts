// The documented `.om` byte layout (packages/om/README.md), as far as the fuzzer needs it to edit
// partitions and write a file whose checksum is right again, so mutants get past the checksum.
import { OM_ALIGNMENT, OM_HEADER_SIZE, crc32 } from '@tsge/om';

const PARTITION_COUNT = 32;
const CHECKSUM = 16;
const BODY_LENGTH = 24;
const ENTRY_SIZE = 24;
export const PARTITION_NAMES = ['MODEL_DEF', 'WEIGHTS', 'TASK_INFO', 'KERNELS', 'IO_INFO'] as const;
export type PartitionName = (typeof PARTITION_NAMES)[number];

export interface OmParts {
  readonly header: Uint8Array;
  /** Partitions in table order. */
  readonly parts: { type: number; bytes: Uint8Array }[];
}

/** Splits a well-formed `.om` (a seed) into its header and partitions. */
export function splitOm(bytes: Uint8Array): OmParts {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.getUint32(PARTITION_COUNT, true);
  const parts: OmParts['parts'] = [];
  for (let i = 0; i < count; i++) {
    const entry = OM_HEADER_SIZE + i * ENTRY_SIZE;
    const offset = Number(view.getBigUint64(entry + 8, true));
    const size = Number(view.getBigUint64(entry + 16, true));
    parts.push({ type: view.getUint32(entry, true), bytes: bytes.slice(offset, offset + size) });
  }
  return { header: bytes.slice(0, OM_HEADER_SIZE), parts };
}

/** Lays the partitions out again (aligned), with the body length and checksum recomputed. */
export function joinOm({ header, parts }: OmParts): Uint8Array {
  const align = (n: number): number => Math.ceil(n / OM_ALIGNMENT) * OM_ALIGNMENT;
  let cursor = align(OM_HEADER_SIZE + parts.length * ENTRY_SIZE);
  const offsets = parts.map((p) => {
    const at = cursor;
    cursor = align(cursor + p.bytes.length);
    return at;
  });
  const out = new Uint8Array(cursor);
  out.set(header.subarray(0, OM_HEADER_SIZE));
  const view = new DataView(out.buffer);
  view.setUint32(PARTITION_COUNT, parts.length, true);
  parts.forEach((p, i) => {
    const entry = OM_HEADER_SIZE + i * ENTRY_SIZE;
    view.setUint32(entry, p.type, true);
    view.setUint32(entry + 4, 0, true);
    view.setBigUint64(entry + 8, BigInt(offsets[i] as number), true);
    view.setBigUint64(entry + 16, BigInt(p.bytes.length), true);
    out.set(p.bytes, offsets[i]);
  });
  view.setBigUint64(BODY_LENGTH, BigInt(out.length - OM_HEADER_SIZE), true);
  fixChecksum(out);
  return out;
}

/** Rewrites the body checksum in place (after raw edits of the body). */
export function fixChecksum(bytes: Uint8Array): void {
  if (bytes.length < OM_HEADER_SIZE) return;
  new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).setUint32(CHECKSUM, crc32(bytes.subarray(OM_HEADER_SIZE)), true);
}

export const partitionType = (name: PartitionName): number => PARTITION_NAMES.indexOf(name);
