import { graphToJson } from '@tsge/metadef';
import { OM_MAGIC } from './layout.js';
import type { OmModel } from './types.js';

/** A readable dump of a model (`atc --mode=1`); weights and kernels are summarized by size. */
export function omToJson(model: OmModel): object {
  return {
    format: 'tsge.om.json',
    version: 1,
    header: { magic: OM_MAGIC.replace('\0', ''), ...model.header },
    ioInfo: model.ioInfo,
    weights: { bytes: model.weights.length },
    kernels: model.kernels.map((k) => ({ name: k.name, bytes: k.bytes.length })),
    kernelDescriptions: (model.kernelDescriptions ?? []).map((d, index) => ({ index, ...d })),
    taskInfo: model.taskInfo,
    graph: graphToJson(model.graph),
  };
}
