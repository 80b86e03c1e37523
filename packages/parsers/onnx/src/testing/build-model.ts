// Builds small ONNX models in tests by encoding with the generated protobuf code.
import {
  type IAttributeProto,
  type IFunctionProto,
  type IGraphProto,
  type INodeProto,
  type ITensorProto,
  type IValueInfoProto,
  onnx,
} from '../internal/proto.js';

export const DT = {
  FLOAT: 1,
  UINT8: 2,
  INT8: 3,
  INT32: 6,
  INT64: 7,
  STRING: 8,
  BOOL: 9,
  FLOAT16: 10,
  DOUBLE: 11,
  BFLOAT16: 16,
  UINT4: 21,
  INT4: 22,
} as const;

export const a = {
  int: (name: string, i: number): IAttributeProto => ({ name, type: 2, i }),
  ints: (name: string, ints: number[]): IAttributeProto => ({ name, type: 7, ints }),
  float: (name: string, f: number): IAttributeProto => ({ name, type: 1, f }),
  floats: (name: string, floats: number[]): IAttributeProto => ({ name, type: 6, floats }),
  string: (name: string, s: string): IAttributeProto => ({ name, type: 3, s: new TextEncoder().encode(s) }),
  tensor: (name: string, t: ITensorProto): IAttributeProto => ({ name, type: 4, t }),
  graph: (name: string, g: IGraphProto): IAttributeProto => ({ name, type: 5, g }),
  ref: (name: string, refAttrName: string, type: number): IAttributeProto => ({ name, refAttrName, type }),
};

export function node(opType: string, input: string[], output: string[], attribute: IAttributeProto[] = [], domain = ''): INodeProto {
  return { opType, input, output, attribute, domain, name: `${opType}_${output[0] ?? ''}` };
}

export function value(name: string, elemType: number = DT.FLOAT, dims?: (number | string)[]): IValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType,
        ...(dims ? { shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) } } : {}),
      },
    },
  };
}

export function floatTensor(name: string, dims: number[], values: number[]): ITensorProto {
  return { name, dims, dataType: DT.FLOAT, floatData: values };
}

export function int64Tensor(name: string, dims: number[], values: number[]): ITensorProto {
  return { name, dims, dataType: DT.INT64, int64Data: values };
}

export interface ModelSpec {
  readonly nodes: INodeProto[];
  readonly inputs: IValueInfoProto[];
  readonly outputs: IValueInfoProto[];
  readonly initializers?: ITensorProto[];
  readonly valueInfo?: IValueInfoProto[];
  /** ai.onnx opset (default 21). */
  readonly opset?: number;
  readonly opsets?: Record<string, number>;
  readonly functions?: IFunctionProto[];
  readonly irVersion?: number;
}

export function graph(spec: Omit<ModelSpec, 'opset' | 'opsets' | 'functions' | 'irVersion'>, name = 'g'): IGraphProto {
  return {
    name,
    node: spec.nodes,
    input: spec.inputs,
    output: spec.outputs,
    initializer: spec.initializers ?? [],
    valueInfo: spec.valueInfo ?? [],
  };
}

export function encodeModel(spec: ModelSpec): Uint8Array {
  const opsets = Object.entries({ '': spec.opset ?? 21, ...(spec.opsets ?? {}) }).map(([domain, version]) => ({ domain, version }));
  return onnx.ModelProto.encode({
    irVersion: spec.irVersion ?? 10,
    producerName: 'tsge-test',
    opsetImport: opsets,
    graph: graph(spec),
    functions: spec.functions ?? [],
  }).finish();
}

export function encodeTensor(t: ITensorProto): Uint8Array {
  return onnx.TensorProto.encode(t).finish();
}
