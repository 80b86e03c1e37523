import type { OnnxValue, Tensor as OrtTensor } from 'onnxruntime-common';
import { Tensor } from 'onnxruntime-common';
import type { DropInValue } from './tensors.js';

/**
 * onnxruntime-common's InferenceSession.run makes a Tensor of every result its handler returns,
 * so sequences (arrays), absent optionals (null) and tensors of types it lacks cannot pass it. The
 * drop-in's handler returns an empty placeholder Tensor for each and the drop-in's run puts the
 * real value back. Only sessions the drop-in created get placeholders (it marks their options).
 */
export const DROP_IN_SESSION: unique symbol = Symbol.for('tsge.adapter-onnxruntime.drop-in');

const values = new WeakMap<OrtTensor, DropInValue>();

/** An empty Tensor standing for `value` until the drop-in's run returns it. */
export function placeholderFor(value: DropInValue): OrtTensor {
  const placeholder = new Tensor('float32', new Float32Array(0), [0]);
  values.set(placeholder, value);
  return placeholder;
}

/** The results with each placeholder replaced by its value. */
export function withDropInValues(results: Readonly<Record<string, OnnxValue>>): Record<string, DropInValue> {
  const out: Record<string, DropInValue> = {};
  for (const [name, value] of Object.entries(results)) {
    const real = values.has(value) ? values.get(value) : value;
    Object.defineProperty(out, name, { value: real, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
