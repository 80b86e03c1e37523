import {
  type Diagnostic,
  type ErrorCode,
  type Graph,
  type KernelDescription,
  TsgeError,
  createAttrReader,
  decodeKernelDescription,
  diagnostic,
  parseAir,
} from '@tsge/metadef';
import { planAttrsProblem, taskAttrsProblem } from './check-task-attrs.js';
import { crc32 } from './crc32.js';
import {
  FLAG_DYNAMIC,
  FLAG_GEARS,
  HEADER,
  LIMITS,
  MAX_PARTITIONS,
  MODEL_NAME_BYTES,
  MODEL_TYPE_CODES,
  OM_FORMAT_VERSION,
  OM_HEADER_SIZE,
  OM_MAGIC,
  PARTITION_ENTRY_SIZE,
  PARTITION_TYPES,
  TARGET_BYTES,
} from './layout.js';
import type { IoInfo, KernelModule, OmHeader, OmModel, PartitionType, TaskInfo } from './types.js';
import { checkIoInfo, checkPlanBounds, checkPlanIo, checkTaskInfo } from './validate-json.js';
import { checkWeightStorage, widenWeights } from './weight-storage.js';
import { DESCRIPTION_PREFIX } from './write-om.js';

const FORMAT = '.om';
const decoder = new TextDecoder('utf-8', { fatal: true });

export interface ReadOmOptions {
  readonly fileName?: string;
  /**
   * Decode MODEL_DEF on first access of `model.graph` instead of now, when every kernel task
   * carries its attributes (an executor then never decodes it for static plans). The checksum and
   * every other check still run here; a bad MODEL_DEF throws TsgeError on access.
   */
  readonly lazyGraph?: boolean;
}
export interface ReadOmResult {
  readonly model: OmModel | undefined;
  readonly diagnostics: Diagnostic[];
}

/** Thrown inside the reader only; turned into a diagnostic at the boundary. */
export class OmProblem extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly args: Record<string, unknown>,
  ) {
    super(code);
  }
}
export function fail(code: ErrorCode, args: Record<string, unknown>): never {
  throw new OmProblem(code, { format: FORMAT, ...args });
}
export const invalid = (reason: string): never => fail('TSGE-E2001', { reason });
const problem = (reason: string): never => fail('TSGE-E2006', { reason });

/** Whether every kernel task carries its attributes, so running the plans never needs MODEL_DEF. */
export function tasksCarryAttributes(taskInfo: TaskInfo): boolean {
  return taskInfo.plans.every((plan) => plan.streams.every((s) => s.tasks.every((t) => t.kind !== 'kernel' || t.attrs !== undefined)));
}

/**
 * Reads and validates an .om file. Every length, offset and count is checked against the file
 * before the data it describes is touched; a bad file gives diagnostics and no model, never a throw.
 */
export function readOm(bytes: Uint8Array, options: ReadOmOptions = {}): ReadOmResult {
  const location = options.fileName !== undefined ? { file: options.fileName } : undefined;
  try {
    return { model: readChecked(bytes, options.lazyGraph === true, location), diagnostics: [] };
  } catch (e) {
    if (e instanceof OmProblem) return { model: undefined, diagnostics: [diagnostic(e.code, e.args, location)] };
    // a kernel description that fails validation carries its own code (TSGE-E7100/E7101)
    if (TsgeError.isInstance(e))
      return { model: undefined, diagnostics: e.diagnostics.map((d) => ({ ...d, location: { ...d.location, ...location } })) };
    const reason = e instanceof Error ? e.message : String(e);
    return { model: undefined, diagnostics: [diagnostic('TSGE-E2006', { format: FORMAT, reason: `unreadable: ${reason}` }, location)] };
  }
}

function readChecked(bytes: Uint8Array, lazyGraph: boolean, location: { file: string } | undefined): OmModel {
  if (!(bytes instanceof Uint8Array)) invalid('input is not a byte array');
  const header = readHeader(bytes);
  if (header.modelType === 'flow') invalid('it is a flow model (GE model type 3): read it with readFlowOm, run it with @tsge/dflow');
  const partitions = readPartitionTable(bytes, header.partitionCount);
  const part = (type: PartitionType): Uint8Array => {
    const p = partitions.get(type);
    if (!p) return invalid(`partition ${type} is missing`);
    return bytes.subarray(p.offset, p.offset + p.size);
  };
  const taskInfo = readJson(part('TASK_INFO'), 'TASK_INFO', checkTaskInfo) as TaskInfo;
  const ioInfo = readJson(part('IO_INFO'), 'IO_INFO', checkIoInfo) as IoInfo;
  const { kernels, kernelDescriptions } = splitKernels(readKernels(part('KERNELS')));
  const weights = deviceWeights(part('WEIGHTS'), taskInfo);
  taskInfo.plans.forEach((plan, i) => {
    const bad = checkPlanBounds(plan, weights.length, i) ?? checkPlanIo(plan, ioInfo, i) ?? planAttrsProblem(plan);
    if (bad) problem(bad);
  });
  if (taskInfo.dynamic !== header.flags.dynamic) problem('the dynamic flag of the header disagrees with TASK_INFO');
  const modelDef = part('MODEL_DEF');
  const decodeGraph = (): Graph => {
    const graph = readGraph(modelDef, header.modelName);
    checkGraphAgainstPlans(graph, taskInfo, weights.length);
    return graph;
  };
  const selfContained = tasksCarryAttributes(taskInfo);
  if (!lazyGraph || !selfContained) return { header, graph: decodeGraph(), weights, taskInfo, kernels, kernelDescriptions, ioInfo };
  let graph: Graph | undefined;
  const model = { header, weights, taskInfo, kernels, kernelDescriptions, ioInfo } as Omit<OmModel, 'graph'>;
  Object.defineProperty(model, 'graph', {
    enumerable: true,
    get(): Graph {
      if (graph) return graph;
      try {
        graph = decodeGraph();
      } catch (e) {
        if (e instanceof OmProblem) throw TsgeError.fromDiagnostics([diagnostic(e.code, e.args, location)]);
        throw e;
      }
      return graph;
    },
  });
  return model as OmModel;
}

/** WEIGHTS as device memory holds it: as stored, or with its narrow spans widened (`weightStorage`). */
function deviceWeights(stored: Uint8Array, taskInfo: TaskInfo): Uint8Array {
  if (taskInfo.weightStorage === undefined) return stored;
  const bad = checkWeightStorage(taskInfo.weightStorage, stored.length);
  if (bad) fail('TSGE-E7120', { reason: bad });
  return widenWeights(stored, taskInfo.weightStorage);
}

export function readHeader(bytes: Uint8Array): OmHeader {
  if (bytes.length < OM_HEADER_SIZE) fail('TSGE-E2003', { reason: `${bytes.length} bytes, the header alone needs ${OM_HEADER_SIZE}` });
  for (let i = 0; i < OM_MAGIC.length; i++) if (bytes[i] !== OM_MAGIC.charCodeAt(i)) invalid('bad magic');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const formatVersion = view.getUint32(HEADER.formatVersion, true);
  if (formatVersion !== OM_FORMAT_VERSION) fail('TSGE-E2002', { version: formatVersion, known: OM_FORMAT_VERSION });
  const headerSize = view.getUint32(HEADER.headerSize, true);
  if (headerSize !== OM_HEADER_SIZE) invalid(`header size ${headerSize}, expected ${OM_HEADER_SIZE}`);
  const bodyLength = view.getBigUint64(HEADER.bodyLength, true);
  const actualBody = BigInt(bytes.length - OM_HEADER_SIZE);
  if (bodyLength > actualBody) fail('TSGE-E2003', { reason: `body length ${bodyLength} but ${actualBody} bytes follow the header` });
  if (bodyLength < actualBody) problem(`${actualBody - bodyLength} unexpected bytes after the body`);
  const checksum = view.getUint32(HEADER.checksum, true);
  const computed = crc32(bytes.subarray(OM_HEADER_SIZE));
  if (checksum !== computed) fail('TSGE-E2005', { stored: hex(checksum), computed: hex(computed) });
  const flagBits = view.getUint32(HEADER.flags, true);
  if (flagBits & ~(FLAG_DYNAMIC | FLAG_GEARS)) invalid(`unknown flags 0x${flagBits.toString(16)}`);
  const partitionCount = view.getUint32(HEADER.partitionCount, true);
  if (partitionCount > MAX_PARTITIONS) fail('TSGE-E2004', { what: 'partition count', actual: partitionCount, limit: MAX_PARTITIONS });
  const modelTypeCode = view.getUint32(HEADER.modelType, true);
  const modelType = modelTypeCode === MODEL_TYPE_CODES.flow ? 'flow' : modelTypeCode === MODEL_TYPE_CODES.standard ? 'standard' : undefined;
  if (modelType === undefined) invalid(`unknown model type ${modelTypeCode}`);
  for (let i = HEADER.modelType + 4; i < OM_HEADER_SIZE; i++) if (bytes[i] !== 0) invalid('reserved header bytes are not zero');
  return {
    formatVersion,
    headerSize,
    checksum,
    bodyLength: Number(bodyLength),
    modelName: fixedString(bytes, HEADER.modelName, MODEL_NAME_BYTES, 'model name'),
    target: fixedString(bytes, HEADER.target, TARGET_BYTES, 'target'),
    flags: { dynamic: (flagBits & FLAG_DYNAMIC) !== 0, gears: (flagBits & FLAG_GEARS) !== 0 },
    partitionCount,
    modelType: modelType as 'standard' | 'flow',
  };
}

export function readPartitionTable(bytes: Uint8Array, count: number): Map<PartitionType, { offset: number; size: number }> {
  const tableEnd = OM_HEADER_SIZE + count * PARTITION_ENTRY_SIZE;
  if (tableEnd > bytes.length) fail('TSGE-E2003', { reason: `the partition table needs ${tableEnd} bytes, the file has ${bytes.length}` });
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const result = new Map<PartitionType, { offset: number; size: number }>();
  const ranges: [number, number, PartitionType][] = [];
  for (let i = 0; i < count; i++) {
    const entry = OM_HEADER_SIZE + i * PARTITION_ENTRY_SIZE;
    const code = view.getUint32(entry, true);
    const type = PARTITION_TYPES[code];
    if (type === undefined) invalid(`partition ${i} has unknown type ${code}`);
    if (view.getUint32(entry + 4, true) !== 0) invalid(`partition ${i} has non-zero reserved bits`);
    const offset = view.getBigUint64(entry + 8, true);
    const size = view.getBigUint64(entry + 16, true);
    if (offset < BigInt(tableEnd) || offset + size > BigInt(bytes.length))
      invalid(`partition ${type} (offset ${offset}, size ${size}) lies outside the file body`);
    if (result.has(type as PartitionType)) invalid(`partition ${type} appears twice`);
    result.set(type as PartitionType, { offset: Number(offset), size: Number(size) });
    ranges.push([Number(offset), Number(offset + size), type as PartitionType]);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < ranges.length; i++) {
    const prev = ranges[i - 1] as [number, number, PartitionType];
    const cur = ranges[i] as [number, number, PartitionType];
    if (cur[0] < prev[1]) invalid(`partitions ${prev[2]} and ${cur[2]} overlap`);
  }
  return result;
}

function readJson(bytes: Uint8Array, what: string, check: (v: unknown) => string | undefined): unknown {
  if (bytes.length > LIMITS.jsonBytes) fail('TSGE-E2004', { what: `${what} size`, actual: bytes.length, limit: LIMITS.jsonBytes });
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(bytes));
  } catch {
    return invalid(`${what} is not valid UTF-8 JSON`);
  }
  const bad = check(value);
  if (bad) {
    if (/version/.test(bad) && typeof value === 'object' && value !== null && 'version' in value)
      fail('TSGE-E2002', { format: `${FORMAT} ${what}`, version: String((value as { version: unknown }).version), known: 1 });
    problem(bad);
  }
  return value;
}

/** A KERNELS-style list of named byte blobs (KERNELS, FLOW_SUBMODEL). */
export function readKernels(bytes: Uint8Array, partition: 'KERNELS' | 'FLOW_SUBMODEL' = 'KERNELS'): KernelModule[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 4) fail('TSGE-E2003', { reason: `${partition} partition has no module count` });
  const count = view.getUint32(0, true);
  if (count > LIMITS.kernelModules) fail('TSGE-E2004', { what: 'kernel module count', actual: count, limit: LIMITS.kernelModules });
  const modules: KernelModule[] = [];
  let p = 4;
  const take = (n: number, what: string): Uint8Array => {
    if (n > bytes.length - p) fail('TSGE-E2003', { reason: `${partition}: ${what} runs past the partition` });
    const out = bytes.subarray(p, p + n);
    p += n;
    return out;
  };
  const u32 = (what: string): number => {
    const b = take(4, what);
    return new DataView(b.buffer, b.byteOffset, 4).getUint32(0, true);
  };
  for (let i = 0; i < count; i++) {
    const nameLength = u32(`module ${i} name length`);
    if (nameLength > LIMITS.kernelNameBytes)
      fail('TSGE-E2004', { what: `kernel module ${i} name length`, actual: nameLength, limit: LIMITS.kernelNameBytes });
    let name: string;
    try {
      name = decoder.decode(take(nameLength, `module ${i} name`));
    } catch {
      return invalid(`kernel module ${i} name is not UTF-8`);
    }
    const size = u32(`module ${i} size`);
    modules.push({ name, bytes: take(size, `module ${i} bytes`) });
  }
  if (p !== bytes.length) problem(`${partition} partition has trailing bytes`);
  return modules;
}

/**
 * Separates the kernel descriptions (modules `description:<i>`, in order) from WebAssembly
 * modules, and validates each description: a bad one is a coded error, never a kernel.
 */
function splitKernels(modules: readonly KernelModule[]): { kernels: KernelModule[]; kernelDescriptions: KernelDescription[] } {
  const kernels: KernelModule[] = [];
  const kernelDescriptions: KernelDescription[] = [];
  for (const m of modules) {
    if (!m.name.startsWith(DESCRIPTION_PREFIX)) {
      kernels.push(m);
      continue;
    }
    const where = `KERNELS ${JSON.stringify(m.name)}`;
    if (m.name !== `${DESCRIPTION_PREFIX}${kernelDescriptions.length}`)
      throw TsgeError.of('TSGE-E7100', { kernel: where, reason: `expected description:${kernelDescriptions.length} at this place` });
    if (m.bytes.length % 4 !== 0)
      throw TsgeError.of('TSGE-E7100', { kernel: where, reason: `${m.bytes.length} bytes, not whole int32 words` });
    const view = new DataView(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength);
    const words = Array.from({ length: m.bytes.length / 4 }, (_, i) => view.getInt32(i * 4, true));
    kernelDescriptions.push(decodeKernelDescription(words, where, { runtimeSized: true }));
  }
  return { kernels, kernelDescriptions };
}

function readGraph(bytes: Uint8Array, modelName: string): Graph {
  const parsed = parseAir(bytes, { fileName: `${modelName}:MODEL_DEF` });
  const error = parsed.diagnostics.find((d) => d.severity === 'error');
  if (error || !parsed.graph) problem(`MODEL_DEF: ${error?.message ?? 'no graph'}`);
  return parsed.graph as Graph;
}

/**
 * Every kernel task names a node of the graph, and a task that takes its attributes from that node
 * passes the attribute rules with them; Const weights lie inside WEIGHTS.
 */
function checkGraphAgainstPlans(graph: Graph, taskInfo: TaskInfo, weightsBytes: number): void {
  const names = new Map<string, Graph['nodes'][number]>();
  for (const node of graph.nodes) {
    names.set(node.name, node);
    const offset = node.opDesc.attrs.get('_weight_offset');
    const size = node.opDesc.attrs.get('_weight_bytes');
    if (offset === undefined && size === undefined) continue;
    if (offset?.kind !== 'int' || size?.kind !== 'int' || offset.value < 0 || size.value < 0 || offset.value + size.value > weightsBytes)
      problem(`Const node ${node.name} has weights outside the WEIGHTS partition`);
  }
  for (const plan of taskInfo.plans)
    for (const stream of plan.streams)
      for (const task of stream.tasks)
        if (task.kind === 'kernel') {
          const node = names.get(task.node);
          if (!node && !hasSubgraphNode(graph, task.node)) problem(`a task names node ${task.node}, which is not in MODEL_DEF`);
          const bad = node && !task.attrs ? taskAttrsProblem(task, createAttrReader(node.opDesc.attrs)) : undefined;
          if (bad) problem(bad);
        }
}

function hasSubgraphNode(graph: Graph, name: string): boolean {
  for (const sub of graph.subgraphs.values()) if (sub.findNode(name)) return true;
  return false;
}

function fixedString(bytes: Uint8Array, offset: number, size: number, what: string): string {
  const field = bytes.subarray(offset, offset + size);
  const end = field.indexOf(0);
  if (end < 0) invalid(`${what} is not NUL-terminated`);
  for (let i = end; i < size; i++) if (field[i] !== 0) invalid(`${what} has bytes after its terminator`);
  try {
    return decoder.decode(field.subarray(0, end));
  } catch {
    return invalid(`${what} is not UTF-8`);
  }
}

function hex(value: number): string {
  return `0x${value.toString(16).padStart(8, '0')}`;
}
