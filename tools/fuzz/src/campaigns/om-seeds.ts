import path from 'node:path';
import { compileModel, defaultRegistries } from '@tsge/ge';
import { parseOnnx } from '@tsge/parser-onnx';
import type { FuzzSeed } from '../campaign.js';
import { readSeeds } from './shared.js';

/** Real models whose `.om` files seed the `.om` campaigns: static and dynamic, control flow, convs, pools, gathers, generated kernels. */
const MODELS = [
  'models/onnx/mnist.onnx',
  ...[
    'test_add_bcast',
    'test_conv_with_strides_and_asymmetric_padding',
    'test_convtranspose_pads',
    'test_maxpool_2d_pads',
    'test_averagepool_2d_strides',
    'test_gather_0',
    'test_gemm_all_attributes',
    'test_matmul_3d',
    'test_reshape_reordered_all_dims',
    'test_transpose_all_permutations_0',
    'test_softmax_axis_1',
    'test_slice',
    'test_concat_3d_axis_1',
    'test_resize_upsample_scales_linear',
    'test_constant_pad',
    'test_reduce_sum_keepdims_example',
    'test_loop11',
    'test_if',
    'test_range_float_type_positive_delta',
    'test_nonzero_example',
    'test_expand_dim_changed',
    'test_batchnorm_epsilon',
    'test_layer_normalization_2d_axis0',
    'test_cast_FLOAT_to_DOUBLE',
    'test_where_example',
    // elementwise chains: their .om files carry generated kernels (descriptions in KERNELS)
    'test_swish_expanded',
    'test_gelu_default_1_expanded',
    // softmax and RMSNorm written out: row-reduction kernels
    'test_softmax_axis_2_expanded',
    'test_rms_normalization_3d_axis_negative_1_epsilon_expanded',
  ].map((t) => `onnx-backend/node/${t}/model.onnx`),
];

/** `.om` seeds: the real models above, compiled by tsge (a model that does not compile is skipped). */
export async function omSeeds(testdata: string): Promise<FuzzSeed[]> {
  const onnx = await readSeeds(
    MODELS.map((m) => path.join(testdata, m)),
    testdata,
  );
  const { ops } = defaultRegistries();
  const seeds: FuzzSeed[] = [];
  for (const seed of onnx) {
    try {
      const parsed = await parseOnnx({ bytes: seed.bytes, path: seed.name }, { extra: { ops } });
      if (!parsed.graph) continue;
      seeds.push({ name: `${seed.name}.om`, bytes: (await compileModel(parsed.graph)).om });
    } catch {
      // not every model compiles today; the rest are enough seeds
    }
  }
  if (seeds.length === 0) throw new Error('no .om seed compiled');
  return seeds;
}
