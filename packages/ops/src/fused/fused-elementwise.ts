import { type Dim, InferenceError, RUNTIME_DIM, TSGE_DOMAIN, UNKNOWN_DIM, broadcastShapes, isUnknownRank } from '@tsge/metadef';
import { defineOp, param } from '../define.js';

export const FUSED_ELEMENTWISE = 'FusedElementwise';

/**
 * A group of elementwise and broadcast ops that the compiler fused into one generated kernel. Its
 * computation is a kernel description (numbers and op codes, see metadef's kernel IR): held in
 * attribute `description` while compiling, and in the .om's KERNELS partition (attribute `kernel`,
 * its index) after. `shape` is the output shape, `RUNTIME_DIM` (0) where a dim is dynamic.
 */
export const fusedElementwiseDefinition = defineOp({
  type: FUSED_ELEMENTWISE,
  domain: TSGE_DOMAIN,
  sinceVersion: 1,
  doc: 'Elementwise/broadcast ops fused into one generated kernel (a kernel description).',
  inputs: [param.variadic('inputs', 'T', 1)],
  outputs: [param.required('y', 'T')],
  attributes: [
    { name: 'shape', kind: 'ints', required: true },
    { name: 'description', kind: 'ints' },
    { name: 'kernel', kind: 'int' },
  ],
  typeConstraints: [{ name: 'T', allowed: ['float32'] }],
  pattern: 'opaque',
  infer: (ctx) => {
    const shape = ctx.attrs.ints('shape');
    if (shape.some((d) => !Number.isInteger(d) || d < RUNTIME_DIM))
      throw new InferenceError(`${FUSED_ELEMENTWISE} ${ctx.nodeName}: bad shape [${shape.join(',')}]`);
    if (!ctx.attrs.has('description') && !ctx.attrs.has('kernel'))
      throw new InferenceError(`${FUSED_ELEMENTWISE} ${ctx.nodeName}: neither a description nor a kernel index`);
    // a dynamic dim (RUNTIME_DIM) is the inputs' broadcast there, right-aligned
    const inputs = broadcastShapes(...Array.from({ length: ctx.inputCount }, (_, i) => ctx.input(i)?.shape ?? []));
    const dims: Dim[] = shape.map((d, i) => {
      if (d !== RUNTIME_DIM) return d;
      const at = inputs && !isUnknownRank(inputs) ? inputs[inputs.length - shape.length + i] : undefined;
      return at ?? UNKNOWN_DIM;
    });
    ctx.setOutput(0, { dtype: 'float32', shape: dims });
  },
});
