import type { KernelV1 } from '@tsge/metadef';
import { fusedElementwiseKernel, nnKernels, mathKernels, tensorKernels } from '@tsge/kernels-js/kernel-support';
import { jsKernelLibrary } from '@tsge/kernels-js';
import { simdAttentionKernel } from './simd-attention.js';
import { simdBatchNormKernel } from './simd-batch-norm.js';
import { simdConvKernel, simdFusedConvKernel } from './simd-conv.js';
import { simdConvTransposeKernel } from './simd-conv-transpose.js';
import { simdElementwiseKernels } from './simd-elementwise.js';
import { simdGemmKernel } from './simd-gemm.js';
import { simdIntConvKernels } from './simd-int-conv.js';
import { simdQuantizeKernels } from './simd-quantize.js';
import { simdMatMulKernel } from './simd-matmul.js';
import { simdMatMulNBitsKernel } from './simd-matmul-nbits.js';
import { simdPoolKernels } from './simd-pool.js';
import { padConstantKernel } from './pad-constant.js';
import { simdResizeKernel } from './simd-resize.js';
import { simdSoftmaxKernel } from './simd-softmax.js';
import { simdLayerNormKernel } from './simd-layer-norm.js';
import { simdLrnKernel } from './simd-lrn.js';
import { simdDepthSpaceKernels, simdTransposeKernel } from './simd-transpose.js';
import { simdSwishKernel } from './simd-swish.js';
import { simdSwigluKernel } from './simd-swiglu.js';
import { simdPackedMatMulKernel } from './simd-packed-matmul.js';
import { simdGroupQueryAttentionKernel } from './simd-group-query-attention.js';
import { simdRmsNormKernel } from './simd-rms-norm.js';
import { simdSkipRmsNormKernel } from './simd-skip-rms-norm.js';
import { simdApplyRotaryKernel } from './simd-apply-rotary.js';
import { generatedElementwiseKernel } from './generated-elementwise.js';

function referenceOf(kernels: readonly KernelV1[], opType: string): KernelV1 {
  const k = kernels.find((x) => x.opType === opType && x.name === 'reference');
  if (!k) throw new Error(`no reference ${opType} kernel to fall back on`);
  return k;
}

/** The 'wasm-simd' kernels; each falls back to the reference kernel where it does not apply. */
export function wasmSimdKernels(): readonly KernelV1[] {
  const all = [...mathKernels, ...nnKernels];
  return [
    simdMatMulKernel(referenceOf(mathKernels, 'MatMul')),
    simdConvKernel(referenceOf(nnKernels, 'Conv')),
    simdFusedConvKernel(referenceOf(nnKernels, 'Conv')),
    ...simdElementwiseKernels((opType) => referenceOf(all, opType)),
    ...simdPoolKernels((opType) => referenceOf(all, opType)),
    simdGemmKernel(referenceOf(all, 'Gemm')),
    simdBatchNormKernel(referenceOf(all, 'BatchNormalization')),
    simdConvTransposeKernel(referenceOf(all, 'ConvTranspose')),
    simdResizeKernel(referenceOf(all, 'Resize')),
    padConstantKernel(referenceOf(tensorKernels, 'Pad')),
    simdSoftmaxKernel(referenceOf(all, 'Softmax')),
    simdLrnKernel(referenceOf(all, 'LRN')),
    simdLayerNormKernel(referenceOf(all, 'LayerNormalization')),
    // ONNX Attention, not the com.microsoft one of the same name
    simdAttentionKernel(
      referenceOf(
        jsKernelLibrary.kernels.filter((k) => k.domain === 'ai.onnx'),
        'Attention',
      ),
    ),
    simdTransposeKernel(referenceOf(tensorKernels, 'Transpose')),
    ...simdDepthSpaceKernels((opType) => referenceOf(tensorKernels, opType)),
    simdSwishKernel(referenceOf(all, 'Swish')),
    simdSwigluKernel(referenceOf(all, 'SwiGLU')),
    simdPackedMatMulKernel(referenceOf(all, 'PackedMatMul')),
    simdGroupQueryAttentionKernel(referenceOf(jsKernelLibrary.kernels, 'GroupQueryAttention')),
    simdRmsNormKernel(referenceOf(jsKernelLibrary.kernels, 'RMSNormalization'), 'RMSNormalization', 'ai.onnx'),
    simdRmsNormKernel(referenceOf(jsKernelLibrary.kernels, 'SimplifiedLayerNormalization'), 'SimplifiedLayerNormalization', 'ai.onnx'),
    simdSkipRmsNormKernel(referenceOf(jsKernelLibrary.kernels, 'SkipSimplifiedLayerNormalization')),
    simdApplyRotaryKernel(referenceOf(all, 'ApplyRotary')),
    generatedElementwiseKernel(fusedElementwiseKernel),
    simdMatMulNBitsKernel(referenceOf(nnKernels, 'MatMulNBits')),
    ...simdIntConvKernels((opType) => referenceOf(all, opType)),
    ...simdQuantizeKernels((opType) => referenceOf(all, opType)),
  ];
}
