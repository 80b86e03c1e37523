import { readFile } from 'node:fs/promises';
import { type Executor, loadModel } from '@tsge/executor';
import { TsgeError, isHostTensor } from '@tsge/metadef';
import { isRawBytes } from '../message.js';
import type { FlowMessage } from '../message.js';
import type { PointSpec } from '../spec.js';
import { type Emission, type PointProcessor, type ProcessorContext, derivedHeader } from './processor.js';

/** Parses and compiles a model file; @tsge/ge (parsers, compiler) is loaded only for this. */
async function compileModelFile(
  source: string | Uint8Array,
  buildOptions: Extract<PointSpec, { kind: 'graph' }>['buildOptions'],
): Promise<Uint8Array> {
  const { buildModel, parseModel } = await import('@tsge/ge');
  return buildModel(await parseModel(source), buildOptions);
}

const OM_MAGIC = [0x54, 0x53, 0x47, 0x45, 0x2e, 0x4f, 0x4d, 0x00]; // 'TSGE.OM\0'

function isOm(bytes: Uint8Array): boolean {
  return OM_MAGIC.every((b, i) => bytes[i] === b);
}

/** The `.om` bytes a graph point runs: an `.om` as is, any other model file parsed and compiled. */
export async function graphPointOm(
  point: Extract<PointSpec, { kind: 'graph' }>,
  context: Pick<ProcessorContext, 'node' | 'submodel'>,
): Promise<Uint8Array> {
  const { model } = point;
  if (model.kind === 'submodel') {
    if (!context.submodel) throw TsgeError.of('TSGE-E8102', { node: context.node, reason: `submodel ${model.name} needs a flow model` });
    return context.submodel(model.name);
  }
  if (model.kind === 'bytes') {
    if (isOm(model.bytes)) return model.bytes;
    return compileModelFile(model.bytes, point.buildOptions);
  }
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(model.path));
  } catch (e) {
    throw TsgeError.of('TSGE-E7003', { path: model.path }, { file: model.path }, e);
  }
  if (isOm(bytes)) return bytes;
  return compileModelFile(model.path, point.buildOptions);
}

/** Runs a model with tsge's executor; one executor per instance. */
export async function createGraphProcessor(
  point: Extract<PointSpec, { kind: 'graph' }>,
  context: ProcessorContext,
): Promise<PointProcessor> {
  const om = await graphPointOm(point, context);
  const executor: Executor = await loadModel(om, { threads: point.threads });
  const fail = (reason: string): never => {
    throw TsgeError.of('TSGE-E8102', { node: context.node, reason });
  };
  if (executor.inputNames.length !== point.inputCount) {
    await executor.release();
    fail(`point ${point.name} declares ${point.inputCount} inputs, its model has ${executor.inputNames.length}`);
  }
  if (executor.outputNames.length !== point.outputCount) {
    await executor.release();
    fail(`point ${point.name} declares ${point.outputCount} outputs, its model has ${executor.outputNames.length}`);
  }
  return {
    async process(_group: number, inputs: readonly FlowMessage[]): Promise<readonly Emission[]> {
      const feeds: Record<string, import('@tsge/metadef').HostTensor> = {};
      inputs.forEach((message, i) => {
        const value = message.value;
        if (value === undefined || isRawBytes(value))
          throw TsgeError.of('TSGE-E8102', { node: context.node, reason: `input ${i} carries raw bytes; a model takes tensors` });
        feeds[executor.inputNames[i] as string] = value;
      });
      const result = await executor.run(feeds);
      const outputs = executor.outputNames.map((name) => {
        const v = result[name];
        if (!isHostTensor(v)) throw TsgeError.of('TSGE-E8102', { node: context.node, reason: `model output ${name} is not a tensor` });
        return v;
      });
      const first = (inputs[0] as FlowMessage).header;
      return [{ outputs, header: derivedHeader(first, first.segment, first.segmentEnd) }];
    },
    close: () => executor.release(),
  };
}
