import type { Diagnostic, Graph } from '@tsge/metadef';
import { diagnostic, isStaticDim, isStaticShape } from '@tsge/metadef';

export type Gear = Record<string, number[]>;

/**
 * The concrete input shapes of each gear: `dynamicBatchSizes` set the first dim of every input
 * whose first dim is not static; each `dynamicDims` row gives the values of all non-static dims
 * of the inputs, in input order.
 */
export function gearsOf(
  graph: Graph,
  batchSizes: readonly number[] | undefined,
  dims: readonly (readonly number[])[] | undefined,
): { gears: Gear[]; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  if (!batchSizes?.length && !dims?.length) return { gears: [], diagnostics };
  const fail = (reason: string) => {
    diagnostics.push(diagnostic('TSGE-E5005', { reason }, { option: batchSizes?.length ? 'dynamic_batch_size' : 'dynamic_dims' }));
    return { gears: [], diagnostics };
  };
  const inputs = graph.inputNodes().map((n) => ({ name: n.name, shape: [...(n.opDesc.outputDescs[0]?.shape ?? [])] }));
  const symbolic = inputs.filter((i) => !isStaticShape(i.shape));
  if (symbolic.length === 0) return fail('the model has no input with a dynamic dim');
  if (symbolic.some((i) => i.shape.length === 1 && i.shape[0] === -2)) return fail('an input has an unknown rank');
  const gears: Gear[] = [];
  if (batchSizes?.length) {
    for (const b of batchSizes) {
      if (!Number.isSafeInteger(b) || b <= 0) return fail(`batch size ${b} is not a positive integer`);
      const gear: Gear = {};
      for (const input of symbolic) {
        const shape = input.shape.map((d, i) => (i === 0 ? b : d));
        if (!isStaticShape(shape)) return fail(`input ${input.name} has dynamic dims besides the batch`);
        gear[input.name] = [...shape];
      }
      gears.push(gear);
    }
  } else {
    const count = symbolic.reduce((n, i) => n + i.shape.filter((d) => !isStaticDim(d)).length, 0);
    for (const row of dims ?? []) {
      if (row.length !== count) return fail(`a row has ${row.length} values, the inputs have ${count} dynamic dims`);
      if (!row.every((v) => Number.isSafeInteger(v) && v >= 0)) return fail('dims must be non-negative integers');
      let k = 0;
      const gear: Gear = {};
      for (const input of symbolic) gear[input.name] = input.shape.map((d) => (isStaticDim(d) ? d : (row[k++] as number)));
      gears.push(gear);
    }
  }
  return { gears, diagnostics };
}
