import { type Dim, type OpDefinitionV1, InferenceError, TSGE_DOMAIN, attr, isUnknownRank } from '@tsge/metadef';
import { NN_FLOAT_TYPES, inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

/**
 * tsge::ApplyRotary, rotary position embedding y = x·cos + rotate(x)·sin. In the default
 * ("rotate half", LLaMA/NeoX) form rotate(x) = concat(−x[…, d/2:], x[…, :d/2]); with
 * `interleaved` = 1 (GPT-J's rotate_every_two) the pairs are adjacent: rotate(x)[2i] = −x[2i+1],
 * rotate(x)[2i+1] = x[2i]. cos and sin broadcast to x (unidirectionally: y has x's shape) and
 * their last axis is x's last axis d, which is even.
 */
export const APPLY_ROTARY = 'ApplyRotary';

const known = (d: Dim | undefined): d is number => typeof d === 'number' && d >= 0;

export const applyRotaryDefinition: OpDefinitionV1 = defineOp({
  type: APPLY_ROTARY,
  domain: TSGE_DOMAIN,
  sinceVersion: 1,
  doc: 'x·cos + rotate(x)·sin: rotate(x) = concat(−x₂, x₁) of the halves of the last axis, or of adjacent pairs with interleaved = 1.',
  inputs: [param.required('x', 'T'), param.required('cos', 'T'), param.required('sin', 'T')],
  outputs: [param.required('y', 'T')],
  attributes: [{ name: 'interleaved', kind: 'int', default: attr.int(0) }],
  typeConstraints: [{ name: 'T', allowed: NN_FLOAT_TYPES }],
  infer: (ctx) => {
    const x = inputInfo(ctx, 0);
    const bad = (what: string) => new InferenceError(`${APPLY_ROTARY} ${ctx.nodeName}: ${what}`);
    if (isUnknownRank(x.shape)) return ctx.setOutput(0, { dtype: x.dtype, shape: x.shape });
    if (x.shape.length === 0) throw bad('x needs an axis to rotate');
    const last = x.shape[x.shape.length - 1];
    if (known(last) && last % 2 !== 0) throw bad(`the last axis ${last} of x must be even`);
    for (const i of [1, 2]) {
      const t = inputInfo(ctx, i);
      if (isUnknownRank(t.shape)) continue;
      const name = i === 1 ? 'cos' : 'sin';
      if (t.shape.length > x.shape.length) throw bad(`${name} [${t.shape.join(', ')}] has more axes than x [${x.shape.join(', ')}]`);
      const offset = x.shape.length - t.shape.length;
      t.shape.forEach((d, k) => {
        const xd = x.shape[offset + k];
        const lastAxis = k === t.shape.length - 1;
        if (known(d) && known(xd) && d !== xd && (lastAxis || d !== 1))
          throw bad(`${name} [${t.shape.join(', ')}] does not broadcast to x [${x.shape.join(', ')}]`);
      });
    }
    ctx.setOutput(0, { dtype: x.dtype, shape: x.shape });
  },
});
