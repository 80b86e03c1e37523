// The only module that touches the generated protobuf code; everything else sees plain interfaces.
import { descriptor } from '../generated/tensorflow-descriptor.js';
import { tensorflow as generated } from '../generated/tensorflow.js';

export const tf = generated;
export const tfDescriptor: unknown = descriptor;
export type IGraphDef = generated.IGraphDef;
export type INodeDef = generated.INodeDef;
export type IAttrValue = generated.IAttrValue;
export type ITensorProto = generated.ITensorProto;
export type ITensorShapeProto = generated.ITensorShapeProto;
export type IFunctionDef = generated.IFunctionDef;
export type ISavedModel = generated.ISavedModel;
export type IMetaGraphDef = generated.IMetaGraphDef;
export type ISignatureDef = generated.ISignatureDef;
export type IBundleEntryProto = generated.IBundleEntryProto;
