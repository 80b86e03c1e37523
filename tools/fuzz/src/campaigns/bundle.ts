// A model made of several files (tfjs model.json + weight shards, Caffe prototxt + caffemodel) as
// one fuzz input: named parts in a small container. A mutation step changes one part with the
// mutator its kind calls for, so the container itself always stays readable; a reproducer is a
// `.bundle` file, and `readBundle` takes it apart again.
import type { Rng } from '../rng.js';

export interface BundlePart {
  readonly name: string;
  readonly bytes: Uint8Array;
}

const MAGIC = new TextEncoder().encode('TSGEFZB1');

export function writeBundle(parts: readonly BundlePart[]): Uint8Array {
  const names = parts.map((p) => new TextEncoder().encode(p.name));
  const size = MAGIC.length + 4 + parts.reduce((n, p, i) => n + 8 + (names[i] as Uint8Array).length + p.bytes.length, 0);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out.set(MAGIC);
  let at = MAGIC.length;
  view.setUint32(at, parts.length, true);
  at += 4;
  parts.forEach((p, i) => {
    const name = names[i] as Uint8Array;
    view.setUint32(at, name.length, true);
    out.set(name, at + 4);
    at += 4 + name.length;
    view.setUint32(at, p.bytes.length, true);
    out.set(p.bytes, at + 4);
    at += 4 + p.bytes.length;
  });
  return out;
}

/** The parts of a bundle; throws a plain Error on a file that is not one (only the harness writes them). */
export function readBundle(bytes: Uint8Array): BundlePart[] {
  if (bytes.length < MAGIC.length + 4 || !MAGIC.every((b, i) => bytes[i] === b)) throw new Error('not a fuzz bundle');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = MAGIC.length;
  const count = view.getUint32(at, true);
  at += 4;
  const parts: BundlePart[] = [];
  for (let i = 0; i < count; i++) {
    const nameLength = view.getUint32(at, true);
    const name = new TextDecoder().decode(bytes.subarray(at + 4, at + 4 + nameLength));
    at += 4 + nameLength;
    const length = view.getUint32(at, true);
    if (at + 4 + length > bytes.length) throw new Error('truncated fuzz bundle');
    parts.push({ name, bytes: bytes.subarray(at + 4, at + 4 + length) });
    at += 4 + length;
  }
  return parts;
}

/** One mutation step on one part (the first, the model file, half the time), chosen by `mutatorOf(name)`. */
export function mutateBundle(
  bytes: Uint8Array,
  rng: Rng,
  mutatorOf: (name: string) => (bytes: Uint8Array, rng: Rng) => Uint8Array,
): Uint8Array {
  const parts = readBundle(bytes);
  const index = parts.length === 1 || rng.chance(0.5) ? 0 : rng.int(parts.length);
  const part = parts[index] as BundlePart;
  parts[index] = { name: part.name, bytes: mutatorOf(part.name)(part.bytes.slice(), rng) };
  return writeBundle(parts);
}

/** Shrinking a bundle: drop a part other than the first, then shrink each part in place. */
export function* shrinkBundle(
  bytes: Uint8Array,
  shrinkOf: (name: string) => (bytes: Uint8Array) => Iterable<Uint8Array>,
): Iterable<Uint8Array> {
  const parts = readBundle(bytes);
  for (let i = 1; i < parts.length; i++) yield writeBundle(parts.filter((_, j) => j !== i));
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as BundlePart;
    for (const smaller of shrinkOf(part.name)(part.bytes))
      yield writeBundle(parts.map((p, j) => (j === i ? { name: p.name, bytes: smaller } : p)));
  }
}
