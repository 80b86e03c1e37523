import type { HostTensor } from '@tsge/metadef';
import { readNumber, tensorElementCount } from '@tsge/metadef';

/** Spread of a reference output: an error of 0 against a uniform output proves nothing. */
export interface OutputSpread {
  /** Population standard deviation over all elements of all numeric outputs. */
  readonly std: number;
  /** Distinct values (exact float equality), summed over outputs. */
  readonly distinct: number;
  readonly elements: number;
}

export function outputSpread(outputs: Readonly<Record<string, HostTensor>>): OutputSpread {
  let n = 0;
  let sum = 0;
  let sumSq = 0;
  let distinct = 0;
  for (const t of Object.values(outputs)) {
    if (Array.isArray(t.data)) continue;
    const count = tensorElementCount(t);
    const seen = new Set<number>();
    for (let i = 0; i < count; i++) {
      const v = readNumber(t, i);
      seen.add(v);
      sum += v;
      sumSq += v * v;
    }
    n += count;
    distinct += seen.size;
  }
  const mean = n ? sum / n : 0;
  return { std: n ? Math.sqrt(Math.max(0, sumSq / n - mean * mean)) : 0, distinct, elements: n };
}
