import { type Dim, type OpDefinitionV1, InferenceError, TSGE_DOMAIN, attr, isUnknownRank } from '@tsge/metadef';
import { inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

/**
 * tsge::PackedMatMul: Y[..., M, N] = A[..., M, K] · B[K, N] (+ bias[N], then an activation) with the
 * constant B stored by the compiler in panels of 8 columns: B_packed[⌈N/8⌉, K, 8], panel p holding
 * columns 8p..8p+7 of every row (zeros past N). A GEMM micro-kernel reads a panel sequentially, and a
 * decode step's GEMV streams each panel once with its accumulators in registers, so neither packs B
 * per run. `n` is N (the last panel may be partial). It carries FusedMatMul's generated epilogue
 * over [1, rows, N] when it has one (inputs from index 3).
 */
export const PACKED_MATMUL = 'PackedMatMul';
/** Columns per panel of B_packed. */
export const PACKED_MATMUL_PANEL = 8;

const known = (d: Dim | undefined): d is number => typeof d === 'number' && d >= 0;

export const packedMatMulDefinition: OpDefinitionV1 = defineOp({
  type: PACKED_MATMUL,
  domain: TSGE_DOMAIN,
  sinceVersion: 1,
  doc: 'MatMul with a constant B in 8-column panels [ceil(N/8), K, 8]; optional bias over N and activation.',
  inputs: [
    param.required('A', 'T'),
    param.required('B_packed', 'T'),
    param.optional('bias', 'T'),
    // a generated epilogue's inputs, as on FusedMatMul (fused-ops.ts)
    param.variadic('epilogue_inputs', 'T', 0),
  ],
  outputs: [param.required('Y', 'T')],
  attributes: [
    { name: 'n', kind: 'int', required: true },
    { name: 'activation', kind: 'string', default: attr.string('') },
    { name: 'activation_params', kind: 'floats', default: attr.floats([]) },
    { name: 'description', kind: 'ints' },
    { name: 'kernel', kind: 'int' },
    { name: 'fused_nodes', kind: 'strings' },
  ],
  typeConstraints: [{ name: 'T', allowed: ['float32'] }],
  infer: (ctx) => {
    const a = inputInfo(ctx, 0);
    const b = inputInfo(ctx, 1);
    const n = ctx.attrs.int('n');
    const bad = (what: string) => new InferenceError(`${PACKED_MATMUL} ${ctx.nodeName}: ${what}`);
    if (!Number.isInteger(n) || n < 1) throw bad(`n must be a positive integer, got ${n}`);
    if (!isUnknownRank(b.shape)) {
      if (b.shape.length !== 3 || (known(b.shape[2]) && b.shape[2] !== PACKED_MATMUL_PANEL))
        throw bad(`B_packed must be [panels, K, ${PACKED_MATMUL_PANEL}], got [${b.shape.join(', ')}]`);
      if (known(b.shape[0]) && b.shape[0] !== Math.ceil(n / PACKED_MATMUL_PANEL))
        throw bad(`B_packed has ${b.shape[0]} panels; n = ${n} needs ${Math.ceil(n / PACKED_MATMUL_PANEL)}`);
    }
    if (isUnknownRank(a.shape)) return ctx.setOutput(0, { dtype: a.dtype, shape: a.shape });
    if (a.shape.length < 2) throw bad(`A must have rank 2 or more, got [${a.shape.join(', ')}]`);
    const k = a.shape[a.shape.length - 1];
    if (!isUnknownRank(b.shape) && known(k) && known(b.shape[1]) && k !== b.shape[1])
      throw bad(`A's last dim ${k} differs from B_packed's K ${b.shape[1]}`);
    ctx.setOutput(0, { dtype: a.dtype, shape: [...a.shape.slice(0, -1), n] });
  },
});
