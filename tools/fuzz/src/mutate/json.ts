import type { Rng } from '../rng.js';
import { INTERESTING_INTS, mutateBytes } from './bytes.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const NUMBERS: readonly number[] = [...INTERESTING_INTS, 0.5, -0.5, 1e300, -1e300, 2 ** 53, 2 ** 53 + 2, 2 ** 64, 4294967296, 1e-300];
const STRINGS: readonly string[] = [
  '',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'prototype',
  'float32',
  'int64',
  'string',
  'bool',
  'float16',
  'arena',
  'weights',
  'dynamic',
  'none',
  'kernel',
  'record',
  'wait',
  'sequence',
  'optional',
  'int',
  'ints',
  'float',
  'floats',
  'tensor',
  'graph',
  'x'.repeat(300),
];
const KEYS: readonly string[] = ['__proto__', 'constructor', 'toString', 'kind', 'value', 'shape', 'dims', 'offset', 'bytes', 'dtype'];

interface Slot {
  readonly get: () => Json;
  readonly set: (v: Json) => void;
  readonly remove: () => void;
  readonly parent: Json[] | { [key: string]: Json } | undefined;
}

function slots(value: Json, out: Slot[], setRoot: (v: Json) => void): Slot[] {
  out.push({ get: () => value, set: setRoot, remove: () => setRoot(null), parent: undefined });
  const walk = (v: Json): void => {
    if (Array.isArray(v)) {
      v.forEach((item, i) => {
        out.push({ get: () => v[i] as Json, set: (n) => (v[i] = n), remove: () => v.splice(i, 1), parent: v });
        walk(item);
      });
    } else if (v !== null && typeof v === 'object') {
      for (const key of Object.keys(v)) {
        out.push({ get: () => v[key] as Json, set: (n) => (v[key] = n), remove: () => delete v[key], parent: v });
        walk(v[key] as Json);
      }
    }
  };
  walk(value);
  return out;
}

/**
 * One edit of a JSON document: a number, string, boolean or whole value replaced by an edge value
 * or one of another type, an array element removed or duplicated, an object key removed or added
 * (including `__proto__`-like keys). The result is serialized again (text that parses).
 */
export function mutateJsonText(text: string, rng: Rng): string {
  let root = JSON.parse(text) as Json;
  const all = slots(root, [], (v) => (root = v));
  const slot = rng.pick(all);
  const value = slot.get();
  const roll = rng.int(12);
  if (roll === 0 && slot.parent !== undefined) slot.remove();
  else if (roll === 1 && Array.isArray(slot.parent)) slot.parent.push(structuredClone(value));
  else if (roll === 2) slot.set(rng.pick<Json>([null, true, false, [], {}, 0, '', -1]));
  else if (roll === 3 && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    // an own key even for `__proto__` (plain assignment would set the prototype), as JSON.parse makes it
    const added = rng.pick<Json>([1, -1, 'x', null, [], {}, 'constructor']);
    Object.defineProperty(value, rng.pick(KEYS), { value: added, enumerable: true, writable: true, configurable: true });
  } else if (roll === 4) {
    const donor = rng.pick(all).get();
    slot.set(structuredClone(donor));
  } else if (typeof value === 'number') slot.set(rng.chance(0.6) ? rng.pick(NUMBERS) : value + rng.pick([-1, 1, -value * 2, 0.5]));
  else if (typeof value === 'string') slot.set(rng.pick(STRINGS));
  else if (typeof value === 'boolean') slot.set(!value);
  else if (Array.isArray(value) && value.length > 0) value.splice(rng.int(value.length), 1);
  else slot.set(rng.pick(NUMBERS));
  return JSON.stringify(root);
}

/** A JSON file: structural edits while it still parses, byte edits otherwise (and 20% of the time). */
export function mutateJsonBytes(bytes: Uint8Array, rng: Rng): Uint8Array {
  if (rng.chance(0.2)) return mutateBytes(bytes, rng);
  try {
    return new TextEncoder().encode(mutateJsonText(new TextDecoder().decode(bytes), rng));
  } catch {
    return mutateBytes(bytes, rng);
  }
}
