// A plain float64 reference for keras_lstm_mnist_ptq.tflite, written from the TFLite op
// definitions (not from tsge's graph): QUANTIZE → UNIDIRECTIONAL_SEQUENCE_LSTM → RESHAPE →
// FULLY_CONNECTED → SOFTMAX → QUANTIZE, with each tensor rounded to its own quantization as TFLite
// stores it.
import { type TfliteTensor, decodeTflite } from '@tsge/parser-tflite';

export function lstmClassifierReference(bytes: Uint8Array, image: Uint8Array): Float64Array {
  const model = decodeTflite(bytes);
  const graph = model.subgraphs[0];
  if (!graph) throw new Error('no subgraph');
  const op = (name: string) => {
    const found = graph.operators.find((o) => o.opcode.name === name);
    if (!found) throw new Error(`no ${name}`);
    return found;
  };
  const tensor = (i: number) => graph.tensors[i] as TfliteTensor;
  const values = (t: TfliteTensor): Float64Array => {
    const raw = model.buffers[t.buffer] as Uint8Array;
    const copy = raw.slice().buffer;
    const ints = t.type === 'int32' ? new Int32Array(copy) : t.type === 'int8' ? new Int8Array(copy) : new Uint8Array(copy);
    const scale = t.quantization?.scale[0] ?? 1;
    const zero = t.quantization?.zeroPoint[0] ?? 0;
    return Float64Array.from(ints, (v) => (v - zero) * scale);
  };
  const requantize = (v: number, t: TfliteTensor): number => {
    const scale = t.quantization?.scale[0] ?? 1;
    const zero = t.quantization?.zeroPoint[0] ?? 0;
    const [lo, hi] = t.type === 'uint8' ? [0, 255] : [-128, 127];
    const q = Math.min(hi, Math.max(lo, Math.round(v / scale) + zero));
    return (q - zero) * scale;
  };
  const sigmoid = (v: number) => 1 / (1 + Math.exp(-v));

  const lstm = op('UNIDIRECTIONAL_SEQUENCE_LSTM');
  const weight = (slot: number) => values(tensor(lstm.inputs[slot] as number));
  const [wi, wf, wc, wo] = [1, 2, 3, 4].map(weight) as Float64Array[];
  const [ri, rf, rc, ro] = [5, 6, 7, 8].map(weight) as Float64Array[];
  const [bi, bf, bc, bo] = [12, 13, 14, 15].map(weight) as Float64Array[];
  const input = tensor(lstm.inputs[0] as number);
  const output = tensor(lstm.outputs[0] as number);
  const steps = input.shape[1] as number;
  const features = input.shape[2] as number;
  const cells = (wi as Float64Array).length / features;
  const x = Float64Array.from(image, (v) => requantize(v / 255, input));
  const h = new Float64Array(cells);
  const c = new Float64Array(cells);
  const sequence = new Float64Array(steps * cells);
  const gate = (w: Float64Array, r: Float64Array, b: Float64Array, t: number, k: number) => {
    let s = b[k] as number;
    for (let j = 0; j < features; j++) s += (w[k * features + j] as number) * (x[t * features + j] as number);
    for (let j = 0; j < cells; j++) s += (r[k * cells + j] as number) * (h[j] as number);
    return s;
  };
  for (let t = 0; t < steps; t++) {
    const next = new Float64Array(cells);
    for (let k = 0; k < cells; k++) {
      const i = sigmoid(gate(wi as Float64Array, ri as Float64Array, bi as Float64Array, t, k));
      const f = sigmoid(gate(wf as Float64Array, rf as Float64Array, bf as Float64Array, t, k));
      const g = Math.tanh(gate(wc as Float64Array, rc as Float64Array, bc as Float64Array, t, k));
      const o = sigmoid(gate(wo as Float64Array, ro as Float64Array, bo as Float64Array, t, k));
      c[k] = f * (c[k] as number) + i * g;
      next[k] = o * Math.tanh(c[k] as number);
    }
    h.set(next);
    for (let k = 0; k < cells; k++) sequence[t * cells + k] = requantize(next[k] as number, output);
  }

  const fc = op('FULLY_CONNECTED');
  const w = values(tensor(fc.inputs[1] as number));
  const b = values(tensor(fc.inputs[2] as number));
  const fcOut = tensor(fc.outputs[0] as number);
  const units = b.length;
  const logits = new Float64Array(units);
  for (let u = 0; u < units; u++) {
    let s = b[u] as number;
    for (let j = 0; j < sequence.length; j++) s += (w[u * sequence.length + j] as number) * (sequence[j] as number);
    logits[u] = requantize(s, fcOut);
  }
  const softmaxOut = tensor(op('SOFTMAX').outputs[0] as number);
  const max = Math.max(...logits);
  const exps = Array.from(logits, (v) => Math.exp(v - max));
  const sum = exps.reduce((a, v) => a + v, 0);
  const final = tensor(graph.outputs[0] as number);
  return Float64Array.from(exps, (e) => requantize(requantize(e / sum, softmaxOut), final));
}
