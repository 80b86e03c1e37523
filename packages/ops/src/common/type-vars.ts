// Inputs bound to one type variable of a schema ('T' in Concat(T...), LinearAttention(T, T, T))
// must carry one dtype; a kernel written for the schema copies and converts by the first one. An
// input whose param names a concrete dtype (GatherND's int64 indices) must carry exactly that one.
import { type InferenceContextV1, type ParamSpec, type TypeConstraint, ALL_TENSOR_TYPES, InferenceError } from '@tsge/metadef';

const CONCRETE_TYPES: ReadonlySet<string> = new Set(ALL_TENSOR_TYPES);

function paramOfInput(params: readonly ParamSpec[], index: number): ParamSpec | undefined {
  const last = params.length - 1;
  return index <= last ? params[index] : params[last]?.option === 'variadic' ? params[last] : undefined;
}

/** For each input index, the type variable its param is bound to (undefined: a concrete type or a heterogeneous variadic). */
function typeVarOfInput(params: readonly ParamSpec[], vars: ReadonlySet<string>, index: number): string | undefined {
  const p = paramOfInput(params, index);
  if (!p || !vars.has(p.type)) return undefined;
  if (p.option === 'variadic' && p.homogeneous === false) return undefined;
  return p.type;
}

/** Throws an InferenceError naming the node and both inputs when two inputs of one type variable disagree. */
export function checkTypeVars(ctx: InferenceContextV1, params: readonly ParamSpec[], constraints: readonly TypeConstraint[]): void {
  const vars = new Set(constraints.map((c) => c.name));
  const firstOf = new Map<string, number>();
  for (let i = 0; i < ctx.inputCount; i++) {
    const info = ctx.input(i);
    // sequences and optionals carry their element's dtype under other rules
    if (!info || (info.kind !== undefined && info.kind !== 'tensor')) continue;
    const concrete = paramOfInput(params, i)?.type;
    if (concrete !== undefined && !vars.has(concrete) && CONCRETE_TYPES.has(concrete) && info.dtype !== concrete)
      throw new InferenceError(`${ctx.opType} ${ctx.nodeName}: input ${i} must be ${concrete} but is ${info.dtype}`);
    const tv = typeVarOfInput(params, vars, i);
    if (tv === undefined) continue;
    const first = firstOf.get(tv);
    if (first === undefined) {
      firstOf.set(tv, i);
      continue;
    }
    const firstType = ctx.input(first)?.dtype;
    if (firstType !== info.dtype)
      throw new InferenceError(
        `${ctx.opType} ${ctx.nodeName}: inputs ${first} and ${i} are both of type ${tv} but are ${firstType} and ${info.dtype}`,
      );
  }
}
