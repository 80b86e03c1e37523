import { type HostTensor, type RuntimeValue, isHostTensor, isOptionalValue, isSequenceValue, readNumber } from '@tsge/metadef';

export interface Tolerance {
  readonly rtol: number;
  readonly atol: number;
}

export const DEFAULT_TOLERANCE: Tolerance = { rtol: 1e-3, atol: 1e-7 };

const FLOATING = new Set(['float32', 'float64', 'float16', 'bfloat16', 'complex64', 'complex128']);

function describe(value: RuntimeValue | undefined): string {
  if (value === undefined) return 'nothing';
  if (isSequenceValue(value)) return `sequence<${value.elementType}>[${value.items.length}]`;
  if (isOptionalValue(value)) return value.value === undefined ? 'empty optional' : `optional(${describe(value.value)})`;
  return `${value.type}[${value.dims.join(',')}]`;
}

/**
 * Compares an actual value with the expected one; returns undefined when they match, else why not.
 * Floats: |a - e| <= atol + rtol * |e|, NaN equals NaN; integers, bools and strings exactly;
 * sequences and optionals element by element.
 */
export function compareValues(
  actual: RuntimeValue | undefined,
  expected: RuntimeValue | undefined,
  tolerance = DEFAULT_TOLERANCE,
): string | undefined {
  if (expected === undefined) return actual === undefined ? undefined : `expected nothing, got ${describe(actual)}`;
  if (actual === undefined) return `expected ${describe(expected)}, got nothing`;
  if (isSequenceValue(expected)) {
    if (!isSequenceValue(actual)) return `expected ${describe(expected)}, got ${describe(actual)}`;
    if (actual.items.length !== expected.items.length) return `sequence length ${actual.items.length}, expected ${expected.items.length}`;
    for (let i = 0; i < expected.items.length; i++) {
      const why = compareTensors(actual.items[i] as HostTensor, expected.items[i] as HostTensor, tolerance);
      if (why) return `sequence item ${i}: ${why}`;
    }
    return undefined;
  }
  if (isOptionalValue(expected)) {
    // an optional holding a value may also be produced as the bare value
    const inner = isOptionalValue(actual) ? actual.value : actual;
    if (expected.value === undefined) return inner === undefined ? undefined : `expected an empty optional, got ${describe(actual)}`;
    const why = compareValues(inner, expected.value, tolerance);
    return why ? `optional: ${why}` : undefined;
  }
  if (isOptionalValue(actual)) return compareValues(actual.value, expected, tolerance);
  if (!isHostTensor(actual)) return `expected ${describe(expected)}, got ${describe(actual)}`;
  return compareTensors(actual, expected, tolerance);
}

function compareTensors(actual: HostTensor, expected: HostTensor, tolerance: Tolerance): string | undefined {
  if (actual.type !== expected.type) return `dtype ${actual.type}, expected ${expected.type}`;
  if (actual.dims.length !== expected.dims.length || actual.dims.some((d, i) => d !== expected.dims[i])) {
    return `shape [${actual.dims.join(',')}], expected [${expected.dims.join(',')}]`;
  }
  if (actual.data.length !== expected.data.length) return `data length ${actual.data.length}, expected ${expected.data.length}`;
  const n = expected.data.length;
  if (FLOATING.has(expected.type)) {
    const complex = expected.type === 'complex64' || expected.type === 'complex128';
    let worst = -1;
    let worstExcess = 0;
    for (let i = 0; i < n; i++) {
      const a = complex ? Number(actual.data[i]) : readNumber(actual, i);
      const e = complex ? Number(expected.data[i]) : readNumber(expected, i);
      if (Number.isNaN(e) && Number.isNaN(a)) continue;
      if (a === e) continue;
      const excess = Math.abs(a - e) - (tolerance.atol + tolerance.rtol * Math.abs(e));
      if (!(excess <= 0) && (worst < 0 || !(excess <= worstExcess))) {
        worst = i;
        worstExcess = excess;
      }
    }
    if (worst < 0) return undefined;
    const a = complex ? Number(actual.data[worst]) : readNumber(actual, worst);
    const e = complex ? Number(expected.data[worst]) : readNumber(expected, worst);
    return `value at ${worst} is ${a}, expected ${e} (rtol ${tolerance.rtol}, atol ${tolerance.atol})`;
  }
  for (let i = 0; i < n; i++) {
    if (actual.data[i] !== expected.data[i]) return `value at ${i} is ${String(actual.data[i])}, expected ${String(expected.data[i])}`;
  }
  return undefined;
}
