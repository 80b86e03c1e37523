/** tsge::SwiGLU: gate · sigmoid(gate) · up, with [gate | up] halves of one input's last axis or two inputs. */
import { type KernelContextV1, type KernelV1, TSGE_DOMAIN } from '@tsge/metadef';
import { SWIGLU } from '@tsge/ops/kernel-support';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { floatOutput, hasInput, readFloats } from '../common/nn-float-io.js';
import { defineKernel } from '../define.js';

function compute(ctx: KernelContextV1): void {
  const x = requireTensor(ctx, 0);
  const gate = readFloats(x);
  const two = hasInput(ctx, 1);
  const upT = two ? requireTensor(ctx, 1) : undefined;
  const rank = x.dims.length;
  const width = rank === 0 ? 1 : (x.dims[rank - 1] as number);
  if (upT && (upT.dims.length !== rank || upT.dims.some((d, i) => d !== x.dims[i])))
    throw kernelError(ctx, `gate [${x.dims}] and up [${upT.dims}] must have one shape`);
  if (!upT && (rank === 0 || width % 2 !== 0)) throw kernelError(ctx, `the last axis of [gate | up] [${x.dims}] must be even`);
  const up = upT ? readFloats(upT) : gate;
  const half = upT ? width : width / 2;
  const rows = rank === 0 ? 1 : gate.length / width;
  const y = floatOutput(ctx, 0, upT ? x.dims : [...x.dims.slice(0, -1), half], x.type);
  for (let r = 0; r < rows; r++) {
    const g0 = r * width;
    const u0 = upT ? g0 : g0 + half;
    for (let i = 0; i < half; i++) {
      const g = gate[g0 + i] as number;
      y.data[r * half + i] = (g / (1 + Math.exp(-g))) * (up[u0 + i] as number);
    }
  }
  y.commit();
}

export const swigluKernel: KernelV1 = defineKernel({ opType: SWIGLU, domain: TSGE_DOMAIN, compute });
