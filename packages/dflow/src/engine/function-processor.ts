import { TsgeError } from '@tsge/metadef';
import type { FlowFunctionExport, FlowFunctionV1, ProcContext, ProcFunction } from '../function.js';
import { type FlowMessage, type FlowValue, checkFlowValue } from '../message.js';
import type { PointSpec } from '../spec.js';
import { type Emission, type PointProcessor, type ProcessorContext, derivedHeader } from './processor.js';

type FunctionPoint = Extract<PointSpec, { kind: 'function' }>;

/** Imports a function module and takes its export (only when a flow starts: code never comes from a file). */
export async function loadFunction(point: FunctionPoint, context: Pick<ProcessorContext, 'node' | 'inline'>): Promise<FlowFunctionV1> {
  const fail = (reason: string, cause?: unknown): never => {
    throw TsgeError.of('TSGE-E8110', { module: point.module || context.node, export: point.export, reason }, undefined, cause);
  };
  let exported: FlowFunctionExport | undefined;
  if (point.inline) {
    exported = context.inline ?? fail('the function was given in process and cannot run here (give module + export)');
  } else {
    let mod: Record<string, unknown>;
    try {
      mod = (await import(point.module)) as Record<string, unknown>;
    } catch (e) {
      return fail(e instanceof Error ? e.message : String(e), e);
    }
    if (!(point.export in mod)) fail(`the module has no export ${point.export}`);
    exported = mod[point.export] as FlowFunctionExport;
  }
  let fn: unknown = exported;
  if (typeof exported === 'function') {
    try {
      fn = await exported();
    } catch (e) {
      fail(`its factory threw: ${e instanceof Error ? e.message : String(e)}`, e);
    }
  }
  if (typeof fn !== 'object' || fn === null || (fn as FlowFunctionV1).specVersion !== 'v1')
    fail("the export is not a FlowFunctionV1 (an object with specVersion: 'v1') or a factory of one");
  const f = fn as FlowFunctionV1;
  for (const group of point.groups) {
    const proc = group.name === undefined ? f.proc : f.procs?.[group.name];
    if (typeof proc !== 'function') fail(group.name === undefined ? 'it has no proc function' : `it has no procs.${group.name} function`);
  }
  return f;
}

export async function createFunctionProcessor(point: FunctionPoint, context: ProcessorContext): Promise<PointProcessor> {
  const fn = await loadFunction(point, context);
  const base = { node: context.node, instance: context.instance };
  if (fn.init) await fn.init(point.params, base);
  const procs: ProcFunction[] = point.groups.map((g) => (g.name === undefined ? fn.proc : fn.procs?.[g.name]) as ProcFunction);
  const checkOutputs = (
    outputs: readonly (FlowValue | undefined)[] | undefined,
    header: { transactionId: number },
  ): readonly (FlowValue | undefined)[] => {
    if (!Array.isArray(outputs))
      throw TsgeError.of('TSGE-E8102', { node: context.node, reason: 'proc must return an array of outputs (or nothing)' });
    if (outputs.length > point.outputCount)
      throw TsgeError.of('TSGE-E8102', {
        node: context.node,
        reason: `proc returned ${outputs.length} outputs, the point has ${point.outputCount}`,
      });
    outputs.forEach((v, i) => {
      if (v === undefined) return;
      const bad = checkFlowValue(v);
      if (bad)
        throw TsgeError.of('TSGE-E8102', { node: context.node, reason: `output ${i} of transaction ${header.transactionId}: ${bad}` });
    });
    return outputs;
  };
  return {
    async process(group: number, inputs: readonly FlowMessage[]): Promise<readonly Emission[]> {
      const header = (inputs[0] as FlowMessage).header;
      const parts: (readonly (FlowValue | undefined)[])[] = [];
      const ctx: ProcContext = { ...base, header, emit: (outputs) => parts.push(checkOutputs(outputs, header)) };
      const returned = await (procs[group] as ProcFunction)(
        inputs.map((m) => m.value as FlowValue),
        ctx,
      );
      if (returned !== undefined) parts.push(checkOutputs(returned, header));
      if (parts.length === 1)
        return [
          { outputs: parts[0] as readonly (FlowValue | undefined)[], header: derivedHeader(header, header.segment, header.segmentEnd) },
        ];
      if (parts.length > 1 && (header.segment !== 0 || !header.segmentEnd))
        throw TsgeError.of('TSGE-E8102', { node: context.node, reason: 'a message that is already a segment cannot be split again' });
      return parts.map((outputs, i) => ({
        outputs,
        header: derivedHeader(header, i, i === parts.length - 1, header.eos && i === parts.length - 1),
      }));
    },
    async close() {
      await fn.close?.();
    },
  };
}
