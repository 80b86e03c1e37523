// TreeEnsemble (ai.onnx.ml v5): the unified tree op. Each tree is walked from its root through
// branch nodes to a leaf; leaf weights are aggregated per target, then post-transformed.
import { isUnknownRank } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { defineOp, param } from '../define.js';
import { ML_DOMAIN } from './ml-domain.js';

export const treeEnsembleOp = defineOp({
  type: 'TreeEnsemble',
  domain: ML_DOMAIN,
  sinceVersion: 5,
  inputs: [param.required('X', 'T')],
  outputs: [param.required('Y', 'T')],
  attributes: [
    { name: 'aggregate_function', kind: 'int', default: { kind: 'int', value: 1 } },
    { name: 'leaf_targetids', kind: 'ints', required: true },
    { name: 'leaf_weights', kind: 'tensor', required: true },
    { name: 'membership_values', kind: 'tensor' },
    { name: 'n_targets', kind: 'int' },
    { name: 'nodes_falseleafs', kind: 'ints', required: true },
    { name: 'nodes_falsenodeids', kind: 'ints', required: true },
    { name: 'nodes_featureids', kind: 'ints', required: true },
    { name: 'nodes_hitrates', kind: 'tensor' },
    { name: 'nodes_missing_value_tracks_true', kind: 'ints' },
    { name: 'nodes_modes', kind: 'tensor', required: true },
    { name: 'nodes_splits', kind: 'tensor', required: true },
    { name: 'nodes_trueleafs', kind: 'ints', required: true },
    { name: 'nodes_truenodeids', kind: 'ints', required: true },
    { name: 'post_transform', kind: 'int', default: { kind: 'int', value: 0 } },
    { name: 'tree_roots', kind: 'ints', required: true },
  ],
  typeConstraints: [{ name: 'T', allowed: ['float32', 'float64', 'float16'] }],
  infer(ctx) {
    const x = requireInput(ctx, 0);
    const targets = ctx.attrs.int('n_targets', 1);
    const rows = isUnknownRank(x.shape) ? -1 : x.shape.length <= 1 ? 1 : (x.shape[0] ?? -1);
    ctx.setOutput(0, { dtype: x.dtype, shape: [rows, targets] });
  },
});

export const treeEnsembleOps = [treeEnsembleOp];
