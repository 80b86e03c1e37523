import { type Diagnostic, diagnostic } from '@tsge/metadef';
import { LIMITS } from './layout.js';
import { OmProblem, fail, invalid, readHeader, readKernels, readPartitionTable } from './read-om.js';
import type { OmHeader } from './types.js';
import { assembleOm, encodeKernels } from './write-om.js';

/** A flow model (GE model type 3): the flow graph's description and the `.om` of each graph point. */
export interface FlowOmInput {
  readonly modelName: string;
  /** FLOW_MODEL: the flow graph, as its owner (@tsge/dflow) serialises it (JSON). */
  readonly flowModel: Uint8Array;
  /** FLOW_SUBMODEL: named `.om` files (or other blobs) the flow graph refers to. */
  readonly submodels: readonly { readonly name: string; readonly bytes: Uint8Array }[];
}

export interface FlowOm extends FlowOmInput {
  readonly header: OmHeader;
}

export interface ReadFlowOmResult {
  readonly model: FlowOm | undefined;
  readonly diagnostics: Diagnostic[];
}

/** Writes a flow model: the usual header (model type 3), FLOW_MODEL and FLOW_SUBMODEL partitions. */
export function writeFlowOm(model: FlowOmInput): Uint8Array {
  return assembleOm(
    [
      ['FLOW_MODEL', model.flowModel],
      ['FLOW_SUBMODEL', encodeKernels(model.submodels)],
    ],
    { modelName: model.modelName, target: 'flow', flags: 0, modelType: 'flow' },
  );
}

/** Reads a flow model with the checks of readOm (checksum, bounds, limits); never throws on bad bytes. */
export function readFlowOm(bytes: Uint8Array, options: { readonly fileName?: string } = {}): ReadFlowOmResult {
  const location = options.fileName !== undefined ? { file: options.fileName } : undefined;
  try {
    if (!(bytes instanceof Uint8Array)) invalid('input is not a byte array');
    const header = readHeader(bytes);
    if (header.modelType !== 'flow') invalid('it is not a flow model (model type 3): read it with readOm');
    const partitions = readPartitionTable(bytes, header.partitionCount);
    const part = (type: 'FLOW_MODEL' | 'FLOW_SUBMODEL'): Uint8Array => {
      const p = partitions.get(type) ?? invalid(`partition ${type} is missing`);
      return bytes.subarray(p.offset, p.offset + p.size);
    };
    const flowModel = part('FLOW_MODEL');
    if (flowModel.length > LIMITS.jsonBytes)
      fail('TSGE-E2004', { what: 'FLOW_MODEL size', actual: flowModel.length, limit: LIMITS.jsonBytes });
    const submodels = readKernels(part('FLOW_SUBMODEL'), 'FLOW_SUBMODEL');
    const names = new Set<string>();
    for (const s of submodels) {
      if (names.has(s.name)) invalid(`submodel ${s.name} appears twice`);
      names.add(s.name);
    }
    return { model: { header, modelName: header.modelName, flowModel, submodels }, diagnostics: [] };
  } catch (e) {
    if (e instanceof OmProblem) return { model: undefined, diagnostics: [diagnostic(e.code, e.args, location)] };
    const reason = e instanceof Error ? e.message : String(e);
    return { model: undefined, diagnostics: [diagnostic('TSGE-E2006', { format: '.om', reason: `unreadable: ${reason}` }, location)] };
  }
}
