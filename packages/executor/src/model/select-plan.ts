import type { RuntimeValue } from '@tsge/metadef';
import { TsgeError, isHostTensor } from '@tsge/metadef';
import type { IoTensorInfo } from '@tsge/om';
import type { PreparedPlan } from './kernel-call.js';

/** The plan whose gear matches the input shapes (the static plan when there are no gears), else TSGE-E6008. */
export function selectPlan(plans: readonly PreparedPlan[], inputs: readonly IoTensorInfo[], values: readonly RuntimeValue[]): PreparedPlan {
  if (plans.length === 1 && plans[0]?.gear === null) return plans[0];
  const dimsOf = (name: string): readonly number[] | undefined => {
    const v = values[inputs.findIndex((i) => i.name === name)];
    return v && isHostTensor(v) ? v.dims : undefined;
  };
  for (const plan of plans) {
    if (plan.gear === null) return plan;
    const fits = Object.entries(plan.gear).every(([name, shape]) => {
      const dims = dimsOf(name);
      return dims !== undefined && dims.length === shape.length && dims.every((d, i) => d === shape[i]);
    });
    if (fits) return plan;
  }
  const names = [...new Set(plans.flatMap((p) => Object.keys(p.gear ?? {})))];
  const actual = names.map((n) => `${n}=[${dimsOf(n)?.join(',') ?? '?'}]`).join(' ');
  const expected = plans
    .map((p) =>
      Object.entries(p.gear ?? {})
        .map(([n, s]) => `${n}=[${s.join(',')}]`)
        .join(' '),
    )
    .join(' | ');
  throw TsgeError.of('TSGE-E6008', { actual, expected });
}
