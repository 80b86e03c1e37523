import { TsgeError } from '@tsge/metadef';
import { type TfliteModel, type TfliteTensor, readTfliteModel } from './schema/model.js';
import { FlatbufferError } from './schema/table.js';

/** A model input or output as TFLite declares it: what a caller needs to prepare or read it. */
export interface TfliteIoInfo {
  readonly name: string;
  readonly dtype: string;
  readonly shape: readonly number[];
  /** Per-tensor quantization (real = scale · (q − zeroPoint)), when the tensor is quantized. */
  readonly quantization?: { readonly scale: number; readonly zeroPoint: number };
}

/**
 * Decodes a .tflite file into plain typed objects (tensors, operators, buffers as views into the
 * file). A malformed file throws a TsgeError with code TSGE-E3401.
 */
export function decodeTflite(bytes: Uint8Array, file?: string): TfliteModel {
  try {
    return readTfliteModel(bytes);
  } catch (error) {
    const reason = error instanceof FlatbufferError ? error.message : String(error);
    throw TsgeError.of('TSGE-E3401', { reason }, file ? { file } : undefined);
  }
}

/** The inputs and outputs of a .tflite model's main subgraph, with their quantization. */
export function tfliteIo(bytes: Uint8Array, file?: string): { inputs: TfliteIoInfo[]; outputs: TfliteIoInfo[] } {
  const model = decodeTflite(bytes, file);
  const main = model.subgraphs[0];
  if (!main) throw TsgeError.of('TSGE-E3401', { reason: 'the model has no subgraph' }, file ? { file } : undefined);
  const info = (index: number): TfliteIoInfo => {
    const t = main.tensors[index] as TfliteTensor | undefined;
    if (!t) throw TsgeError.of('TSGE-E3401', { reason: `input/output tensor ${index} does not exist` }, file ? { file } : undefined);
    const q = t.quantization;
    const quantized = q && q.scale.length === 1 && t.type !== 'float32';
    return {
      name: t.name,
      dtype: t.type,
      shape: t.shapeSignature ?? t.shape,
      ...(quantized ? { quantization: { scale: q.scale[0] as number, zeroPoint: q.zeroPoint[0] ?? 0 } } : {}),
    };
  };
  return { inputs: main.inputs.map(info), outputs: main.outputs.map(info) };
}
