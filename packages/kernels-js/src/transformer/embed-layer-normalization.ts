/**
 * com.microsoft EmbedLayerNormalization reference kernel: ids are bounds-checked against their
 * tables; position ids default to the token index; mask_index counts each batch's mask ones (0
 * without a mask, as onnxruntime writes).
 */
import type { HostTensor, KernelContextV1, KernelV1 } from '@tsge/metadef';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { floatOutput, hasInput, readFloats } from '../common/nn-float-io.js';
import { defineKernel } from '../define.js';

function table(ctx: KernelContextV1, index: number, hidden: number, what: string): { rows: number; data: ArrayLike<number> } {
  const t = requireTensor(ctx, index);
  if (t.dims.length !== 2 || t.dims[1] !== hidden) throw kernelError(ctx, `${what} must be [rows, ${hidden}], got [${t.dims}]`);
  return { rows: t.dims[0] as number, data: readFloats(t) };
}

function ids(ctx: KernelContextV1, t: HostTensor, want: number, what: string): Int32Array {
  if (t.type !== 'int32') throw kernelError(ctx, `${what} must be int32, got ${t.type}`);
  if (t.data.length !== want) throw kernelError(ctx, `${what} must hold ${want} values, got [${t.dims}]`);
  return t.data as Int32Array;
}

function compute(ctx: KernelContextV1): void {
  const inputIds = requireTensor(ctx, 0);
  if (inputIds.dims.length !== 2) throw kernelError(ctx, `input_ids must be [batch, sequence], got [${inputIds.dims}]`);
  const [batch, seq] = inputIds.dims as [number, number];
  const wordT = requireTensor(ctx, 2);
  if (wordT.dims.length !== 2) throw kernelError(ctx, `word_embedding must be 2-D, got [${wordT.dims}]`);
  const hidden = wordT.dims[1] as number;
  const word = table(ctx, 2, hidden, 'word_embedding');
  const position = table(ctx, 3, hidden, 'position_embedding');
  const segment = hasInput(ctx, 4) ? table(ctx, 4, hidden, 'segment_embedding') : undefined;
  const segmentIds = hasInput(ctx, 1) ? ids(ctx, requireTensor(ctx, 1), batch * seq, 'segment_ids') : undefined;
  if (!segment !== !segmentIds) throw kernelError(ctx, 'segment_ids and segment_embedding go together');
  const gamma = readFloats(requireTensor(ctx, 5));
  const beta = readFloats(requireTensor(ctx, 6));
  if (gamma.length !== hidden || beta.length !== hidden) throw kernelError(ctx, `gamma and beta must hold ${hidden} values`);
  const mask = hasInput(ctx, 7) ? ids(ctx, requireTensor(ctx, 7), batch * seq, 'mask') : undefined;
  let positionIds: Int32Array | undefined;
  let positionsPerBatch = 0;
  if (hasInput(ctx, 8)) {
    const p = requireTensor(ctx, 8);
    // [B, S], or [1, S] shared by every batch
    positionsPerBatch = p.data.length === seq ? 0 : seq;
    positionIds = ids(ctx, p, positionsPerBatch === 0 ? seq : batch * seq, 'position_ids');
  }
  const epsilon = ctx.attrs.float('epsilon', 1e-12);
  const wordIds = ids(ctx, inputIds, batch * seq, 'input_ids');
  const out = floatOutput(ctx, 0, [batch, seq, hidden], wordT.type);
  const sumOut = ctx.outputCount > 2 ? floatOutput(ctx, 2, [batch, seq, hidden], wordT.type) : undefined;
  const row = new Float64Array(hidden);
  for (let b = 0; b < batch; b++)
    for (let s = 0; s < seq; s++) {
      const t = b * seq + s;
      const w = wordIds[t] as number;
      const p = positionIds ? (positionIds[b * positionsPerBatch + s] as number) : s;
      const g = segmentIds ? (segmentIds[t] as number) : 0;
      if (w < 0 || w >= word.rows) throw kernelError(ctx, `input_ids value ${w} is outside word_embedding (${word.rows} rows)`);
      if (p < 0 || p >= position.rows) throw kernelError(ctx, `position ${p} is outside position_embedding (${position.rows} rows)`);
      if (segment && (g < 0 || g >= segment.rows))
        throw kernelError(ctx, `segment_ids value ${g} is outside segment_embedding (${segment.rows} rows)`);
      let mean = 0;
      for (let i = 0; i < hidden; i++) {
        const v =
          (word.data[w * hidden + i] as number) +
          (position.data[p * hidden + i] as number) +
          (segment ? (segment.data[g * hidden + i] as number) : 0);
        row[i] = v;
        mean += v;
      }
      mean /= hidden;
      let variance = 0;
      for (let i = 0; i < hidden; i++) variance += ((row[i] as number) - mean) ** 2;
      const inv = 1 / Math.sqrt(variance / hidden + epsilon);
      for (let i = 0; i < hidden; i++) {
        out.data[t * hidden + i] = ((row[i] as number) - mean) * inv * (gamma[i] as number) + (beta[i] as number);
        if (sumOut) sumOut.data[t * hidden + i] = row[i] as number;
      }
    }
  out.commit();
  sumOut?.commit();
  if (ctx.outputCount > 1) {
    const maskIndex = ctx.output(1, [batch], 'int32').data as Int32Array;
    for (let b = 0; b < batch; b++) {
      let n = 0;
      if (mask) for (let s = 0; s < seq; s++) n += mask[b * seq + s] as number;
      maskIndex[b] = n;
    }
  }
}

export const embedLayerNormalizationKernels: readonly KernelV1[] = [
  defineKernel({ opType: 'EmbedLayerNormalization', domain: 'com.microsoft', compute }),
];
