// The only module that touches the generated protobuf code; everything else sees plain interfaces.
import { onnx as generated } from '../generated/onnx.js';

export const onnx = generated;
export type IModelProto = generated.IModelProto;
export type IGraphProto = generated.IGraphProto;
export type INodeProto = generated.INodeProto;
export type IAttributeProto = generated.IAttributeProto;
export type ITensorProto = generated.ITensorProto;
export type ISparseTensorProto = generated.ISparseTensorProto;
export type IValueInfoProto = generated.IValueInfoProto;
export type ITypeProto = generated.ITypeProto;
export type IFunctionProto = generated.IFunctionProto;
export type IOperatorSetIdProto = generated.IOperatorSetIdProto;
export type ISequenceProto = generated.ISequenceProto;
export type IOptionalProto = generated.IOptionalProto;
export type IMapProto = generated.IMapProto;
export type IStringStringEntryProto = generated.IStringStringEntryProto;
