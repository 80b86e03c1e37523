// Protobuf text (TensorFlow .pbtxt, Caffe .prototxt) and other line-oriented text: edits that keep
// most of the file well-formed so the reader gets past its tokenizer — numbers set to edge values,
// strings and identifiers swapped, lines deleted, duplicated or moved, braces dropped or added.
import type { Rng } from '../rng.js';
import { INTERESTING_INTS, mutateBytes } from './bytes.js';

const TOKENS: readonly string[] = [
  '__proto__',
  'constructor',
  '""',
  '"x"',
  '{',
  '}',
  '[',
  ']',
  ':',
  '-',
  'nan',
  'inf',
  '-inf',
  '1e309',
  'true',
  '"\\377"',
];
const NUMBER = /-?\d+(\.\d+)?(e[-+]?\d+)?/gi;
const STRING = /"(?:[^"\\]|\\.)*"/g;

export function mutateText(bytes: Uint8Array, rng: Rng): Uint8Array {
  if (rng.chance(0.15)) return mutateBytes(bytes, rng);
  const lines = new TextDecoder().decode(bytes).split('\n');
  if (lines.length === 0) return bytes;
  const at = rng.int(lines.length);
  const line = lines[at] as string;
  const roll = rng.int(7);
  if (roll === 0) lines.splice(at, 1);
  else if (roll === 1) lines.splice(at, 0, line);
  else if (roll === 2) lines.splice(rng.int(lines.length), 0, ...lines.splice(at, 1));
  else if (roll === 3) {
    const numbers = [...line.matchAll(NUMBER)];
    const hit = numbers.length > 0 ? rng.pick(numbers) : undefined;
    if (hit?.index !== undefined) {
      const value = rng.chance(0.7) ? String(rng.pick(INTERESTING_INTS)) : rng.pick(['0', '-1', '0.5', '1e300', '-0', '4294967296']);
      lines[at] = line.slice(0, hit.index) + value + line.slice(hit.index + hit[0].length);
    } else lines[at] = `${line} ${rng.pick(INTERESTING_INTS)}`;
  } else if (roll === 4) {
    const strings = [...line.matchAll(STRING)];
    const hit = strings.length > 0 ? rng.pick(strings) : undefined;
    const donor = rng.pick(lines).match(STRING)?.[0] ?? '"x"';
    if (hit?.index !== undefined)
      lines[at] = line.slice(0, hit.index) + (rng.chance(0.5) ? donor : rng.pick(TOKENS)) + line.slice(hit.index + hit[0].length);
    else lines[at] = `${line} ${rng.pick(TOKENS)}`;
  } else if (roll === 5) lines[at] = line.replace(rng.chance(0.5) ? '{' : '}', '');
  else lines.splice(at, 0, rng.pick(lines), rng.pick(TOKENS));
  return new TextEncoder().encode(lines.join('\n'));
}

/** Line removals, largest blocks first. */
export function* shrinkText(bytes: Uint8Array): Iterable<Uint8Array> {
  const lines = new TextDecoder().decode(bytes).split('\n');
  for (let size = lines.length >> 1; size >= 1; size >>= 1) {
    for (let at = 0; at + size <= lines.length; at += size)
      yield new TextEncoder().encode([...lines.slice(0, at), ...lines.slice(at + size)].join('\n'));
  }
}
