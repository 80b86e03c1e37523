import { erf } from '@tsge/ops/kernel-support';

/**
 * Applies an activation in place. Params: LeakyRelu [alpha]; HardSigmoid [alpha, beta];
 * Clip [min, max]; Gelu [tanhApproximation 0|1].
 */
export function applyActivation(data: Float32Array | Float64Array, activation: string, params: readonly number[]): void {
  const n = data.length;
  switch (activation) {
    case 'None':
      return;
    case 'Relu':
      for (let i = 0; i < n; i++) if ((data[i] as number) < 0) data[i] = 0;
      return;
    case 'LeakyRelu': {
      const alpha = params[0] ?? 0.01;
      for (let i = 0; i < n; i++) {
        const v = data[i] as number;
        if (v < 0) data[i] = v * alpha;
      }
      return;
    }
    case 'Sigmoid':
      for (let i = 0; i < n; i++) data[i] = 1 / (1 + Math.exp(-(data[i] as number)));
      return;
    case 'HardSigmoid': {
      const alpha = params[0] ?? 0.2;
      const beta = params[1] ?? 0.5;
      for (let i = 0; i < n; i++) data[i] = Math.max(0, Math.min(1, alpha * (data[i] as number) + beta));
      return;
    }
    case 'HardSwish':
      for (let i = 0; i < n; i++) {
        const v = data[i] as number;
        data[i] = v * Math.max(0, Math.min(1, v / 6 + 0.5));
      }
      return;
    case 'Tanh':
      for (let i = 0; i < n; i++) data[i] = Math.tanh(data[i] as number);
      return;
    case 'Gelu':
      if (params[0] === 1) {
        const c = Math.sqrt(2 / Math.PI);
        for (let i = 0; i < n; i++) {
          const v = data[i] as number;
          data[i] = 0.5 * v * (1 + Math.tanh(c * (v + 0.044715 * v * v * v)));
        }
      } else for (let i = 0; i < n; i++) data[i] = 0.5 * (data[i] as number) * (1 + erf((data[i] as number) / Math.SQRT2));
      return;
    case 'Clip': {
      const lo = params[0] ?? Number.NEGATIVE_INFINITY;
      const hi = params[1] ?? Number.POSITIVE_INFINITY;
      for (let i = 0; i < n; i++) {
        const v = data[i] as number;
        data[i] = v < lo ? lo : Math.min(v, hi);
      }
      return;
    }
    default:
      throw new RangeError(`unsupported fused activation ${activation}`);
  }
}
