import type { HostTensor } from '@tsge/metadef';
import { compareTensors } from '@tsge/run';

/** Max relative and absolute error of `got` against `expected` over all of expected's outputs (∞ for a missing one). */
export function maxErrors(
  got: Readonly<Record<string, HostTensor>>,
  expected: Readonly<Record<string, HostTensor>>,
): { rel: number; abs: number } {
  let rel = 0;
  let abs = 0;
  for (const [name, exp] of Object.entries(expected)) {
    const actual = got[name];
    const e = actual ? compareTensors(name, actual, exp) : undefined;
    rel = e ? Math.max(rel, e.maxRelError) : Number.POSITIVE_INFINITY;
    abs = e ? Math.max(abs, e.maxAbsError) : Number.POSITIVE_INFINITY;
  }
  return { rel, abs };
}
