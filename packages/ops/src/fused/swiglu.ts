import { type Dim, type OpDefinitionV1, InferenceError, TSGE_DOMAIN, isUnknownRank } from '@tsge/metadef';
import { NN_FLOAT_TYPES, inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

/**
 * tsge::SwiGLU, the gated feed-forward activation of LLaMA-style decoders: y = gate·sigmoid(gate)·up.
 * With two inputs, gate and up have one shape (no broadcasting); with one, its last axis holds
 * [gate | up] in two halves (the fused gate/up projection followed by a Split) and y has half of it.
 */
export const SWIGLU = 'SwiGLU';

const known = (d: Dim | undefined) => typeof d === 'number' && d >= 0;

export const swigluDefinition: OpDefinitionV1 = defineOp({
  type: SWIGLU,
  domain: TSGE_DOMAIN,
  sinceVersion: 1,
  doc: 'gate · sigmoid(gate) · up; one input holds [gate | up] along its last axis.',
  inputs: [param.required('gate', 'T'), param.optional('up', 'T')],
  outputs: [param.required('y', 'T')],
  typeConstraints: [{ name: 'T', allowed: NN_FLOAT_TYPES }],
  infer: (ctx) => {
    const gate = inputInfo(ctx, 0);
    const up = ctx.input(1);
    const bad = (what: string) => new InferenceError(`${SWIGLU} ${ctx.nodeName}: ${what}`);
    if (isUnknownRank(gate.shape)) return ctx.setOutput(0, { dtype: gate.dtype, shape: gate.shape });
    if (up) {
      if (!isUnknownRank(up.shape)) {
        const differs =
          up.shape.length !== gate.shape.length || up.shape.some((d, i) => known(d) && known(gate.shape[i]) && d !== gate.shape[i]);
        if (differs) throw bad(`gate [${gate.shape.join(', ')}] and up [${up.shape.join(', ')}] must have one shape`);
      }
      return ctx.setOutput(0, { dtype: gate.dtype, shape: gate.shape });
    }
    if (gate.shape.length === 0) throw bad('a single input needs an axis to split');
    const last = gate.shape[gate.shape.length - 1];
    if (known(last) && (last as number) % 2 !== 0) throw bad(`the last axis ${last} of [gate | up] must be even`);
    ctx.setOutput(0, { dtype: gate.dtype, shape: [...gate.shape.slice(0, -1), known(last) ? (last as number) / 2 : -1] });
  },
});
