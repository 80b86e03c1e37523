import {
  type DataType,
  type Diagnostic,
  GraphBuilder,
  type HostTensor,
  type ParseInput,
  type ParseOptions,
  type ParseResult,
  type Shape,
  TsgeError,
  type Value,
  attr,
  dataTypeFromOnnx,
  diagnostic,
} from '@tsge/metadef';
import { mind_ir } from '../generated/mind-ir.js';
import { type MsValue, NodeContext, type OutputInfo, attrTensor } from './context.js';
import { lstm } from './lstm.js';
import { OP_CONVERTERS, type OpConverter } from './ops.js';
import { type AttrJs, decodeAttr, decodeTensor, num, tensorDtype } from './values.js';

/** MindSpore's encrypted-MindIR block magic (the first four bytes, little-endian). */
const ENCRYPTED_MAGIC = 0x7f3a5ed8;
const LIMITS = { nodes: 1_000_000, bytes: 2 ** 31 } as const;
export const MINDIR_ONNX_OPSET = 21;

/** Primitives that only carry values or ordering: resolved while reading, no op is emitted. */
/** Primitives of MindIR control flow (graphs as values), which tsge does not translate into If/Loop. */
const CONTROL_FLOW = new Set(['Switch', 'switch', 'SwitchLayer', 'switch_layer', 'Partial', 'partial', 'call', 'Call', 'While', 'while']);

const PSEUDO = new Set([
  'Load',
  'Depend',
  'UpdateState',
  'MakeTuple',
  'TupleGetItem',
  'Return',
  'make_tuple',
  'tuple_getitem',
  'return',
  'depend',
]);

const CONVERTERS: ReadonlyMap<string, OpConverter> = new Map([...OP_CONVERTERS, ['LSTM', lstm]]);

export function isEncryptedMindir(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true) === ENCRYPTED_MAGIC;
}

function decodeModel(bytes: Uint8Array, file: string | undefined): mind_ir.ModelProto {
  const location = file ? { file } : undefined;
  if (isEncryptedMindir(bytes))
    throw TsgeError.of('TSGE-E3302', { reason: "it starts with the magic number of MindSpore's encrypted format" }, location);
  if (bytes.length > LIMITS.bytes)
    throw TsgeError.of('TSGE-E3308', { what: 'file size', actual: bytes.length, limit: LIMITS.bytes }, location);
  let model: mind_ir.ModelProto;
  try {
    model = mind_ir.ModelProto.decode(bytes);
  } catch (error) {
    throw TsgeError.of('TSGE-E3301', { reason: error instanceof Error ? error.message : String(error) }, location, error);
  }
  if (!model.graph || !(model.graph.node?.length || model.graph.output?.length)) {
    throw TsgeError.of(
      'TSGE-E3301',
      { reason: 'it has no graph (an encrypted file without the magic number decodes to nothing either)' },
      location,
    );
  }
  return model;
}

/** Strips MindSpore's `graphName:` prefix from input, parameter and output names. */
function shortName(name: string, graphName: string): string {
  return name.startsWith(`${graphName}:`) ? name.slice(graphName.length + 1) : name;
}

/** The `shape` attribute: each output's dtype and dims as MindSpore inferred them (tensors without data). */
function outputInfo(node: mind_ir.INodeProto): OutputInfo[] {
  const shape = node.attribute?.find((a) => a.name === 'shape' || (a.ref_attr_name ?? '').startsWith('shape:'));
  const tensors = shape?.tensors?.length ? shape.tensors : shape?.t ? [shape.t] : [];
  const out: OutputInfo[] = [];
  for (const t of tensors) {
    const dtype = t.data_type ? dataTypeFromOnnx(t.data_type) : undefined;
    out.push({ dtype: dtype ?? 'float32', shape: (t.dims ?? []).map(num) });
  }
  return out;
}

async function readParameter(p: mind_ir.ITensorProto, name: string, input: ParseInput): Promise<HostTensor> {
  const external = p.external_data;
  if (!external?.location) return decodeTensor(p, name);
  if (!input.readRelative)
    throw TsgeError.of('TSGE-E3305', { parameter: name, reason: `its data is in ${external.location}, and the model was given as bytes` });
  let bytes: Uint8Array;
  try {
    bytes = await input.readRelative(external.location);
  } catch (error) {
    if (TsgeError.isInstance(error)) throw error;
    throw TsgeError.of('TSGE-E3305', {
      parameter: name,
      reason: `cannot read ${external.location}: ${error instanceof Error ? error.message : String(error)}`,
    });
  }
  const offset = num(external.offset);
  const length = num(external.length);
  if (offset < 0 || length < 0 || offset + length > bytes.length) {
    throw TsgeError.of('TSGE-E3305', {
      parameter: name,
      reason: `bytes ${offset}..${offset + length} lie outside ${external.location} (${bytes.length} bytes)`,
    });
  }
  return decodeTensor(p, name, bytes.subarray(offset, offset + length));
}

/** Reads a `.mindir` ModelProto (MindIR 1.x nodes with inline attributes, 2.x with primitives). */
export async function parseMindir(input: ParseInput, options: ParseOptions = {}): Promise<ParseResult> {
  const diagnostics: Diagnostic[] = [];
  const file = input.path;
  try {
    const model = decodeModel(input.bytes, file);
    const graphDef = model.graph as mind_ir.IGraphProto;
    const graphName = graphDef.name ?? 'mindir';
    if ((graphDef.node?.length ?? 0) > LIMITS.nodes)
      throw TsgeError.of('TSGE-E3308', { what: 'node count', actual: graphDef.node?.length, limit: LIMITS.nodes });
    const builder = new GraphBuilder(graphName);
    const names = new Map<string, MsValue>();
    const constants = new Map<HostTensor, Value>();
    const primitives = new Map<string, mind_ir.IPrimitiveProto>();
    for (const p of model.primitives ?? []) primitives.set(p.name ?? '', p);
    // function graphs (the bodies of MindSpore's if/while and calls): referencing one is control flow
    const functions = new Set((model.functions ?? []).map((f) => f.name ?? ''));
    const controlFlow = (node: string, construct: string): never => {
      throw TsgeError.of('TSGE-E3311', { node, construct }, { node });
    };

    for (const info of graphDef.input ?? []) {
      const raw = info.name ?? '';
      const name = shortName(raw, graphName);
      const tensor = info.tensor?.[0];
      const dtype: DataType = tensorDtype(tensor?.data_type ?? 1, name);
      const override = options.inputShapes?.get(name);
      const shape: Shape = override ?? (tensor?.dims ?? []).map(num);
      names.set(raw, { kind: 'value', value: builder.input(name, dtype, shape) });
    }
    for (const p of graphDef.parameter ?? []) {
      const raw = p.name ?? '';
      const name = p.ref_key || shortName(raw, graphName);
      names.set(raw, { kind: 'const', tensor: await readParameter(p, name, input), name });
    }

    for (const node of graphDef.node ?? []) {
      const nodeName = node.name ?? '';
      let op = node.op_type ?? '';
      const attrs = new Map<string, AttrJs>();
      const where = `node ${nodeName}`;
      if (op.startsWith('REF::') && functions.has(op.slice(5))) controlFlow(nodeName, `a call of function graph ${op.slice(5)}`);
      if (op.startsWith('REF::')) {
        const primitive = primitives.get(op.slice(5));
        if (!primitive)
          throw TsgeError.of(
            'TSGE-E3304',
            {
              node: nodeName,
              op,
              reason: 'it references a primitive the file does not contain (or a function graph, which is not supported)',
            },
            { node: nodeName },
          );
        op = primitive.op_type ?? '';
        for (const a of primitive.attribute ?? []) attrs.set(a.name ?? '', decodeAttr(a, where));
      }
      for (const a of node.attribute ?? []) {
        if (a.name === 'shape' || (a.ref_attr_name ?? '').startsWith('shape:')) continue;
        attrs.set(a.name ?? '', decodeAttr(a, where));
      }
      const outputs = node.output ?? [];
      if (op === 'Constant') {
        const v = attrs.get('value');
        const tensor = v === undefined ? undefined : attrTensor(v);
        const value: MsValue =
          v !== undefined && typeof v === 'object' && 'monad' in v
            ? { kind: 'monad' }
            : tensor
              ? { kind: 'const', tensor, name: nodeName }
              : { kind: 'attr', value: v ?? { none: true } };
        for (const out of outputs) names.set(out, value);
        continue;
      }
      if (CONTROL_FLOW.has(op)) controlFlow(nodeName, `primitive ${op}`);
      const inputs = (node.input ?? []).map((name) => {
        const v = names.get(name);
        if (!v && functions.has(name)) controlFlow(nodeName, `function graph ${name} as an input`);
        if (!v) throw TsgeError.of('TSGE-E3307', { node: nodeName, input: name }, { node: nodeName });
        return v;
      });
      let result: MsValue;
      if (PSEUDO.has(op)) result = pseudo(op, nodeName, inputs);
      else {
        const converter = CONVERTERS.get(op);
        if (!converter) throw TsgeError.of('TSGE-E3303', { node: nodeName, op }, { node: nodeName, opType: op });
        result = converter(new NodeContext(builder, shortName(nodeName, graphName), op, attrs, inputs, outputInfo(node), constants));
      }
      for (const out of outputs) names.set(out, result);
    }

    const outputs: { name: string; value: Value }[] = [];
    const emitted = new Set<Value>();
    for (const info of graphDef.output ?? []) {
      const raw = info.name ?? '';
      const v = names.get(raw);
      if (!v) throw TsgeError.of('TSGE-E3307', { node: 'graph output', input: raw });
      const flat = flatten(v);
      flat.forEach((item, i) => {
        const name = flat.length === 1 ? shortName(raw, graphName) : `${shortName(raw, graphName)}:${i}`;
        const context = new NodeContext(builder, name, 'output', new Map(), [item], [], constants);
        let value = context.toValue(item);
        if (emitted.has(value) || value.node.opDesc.type === 'Data' || value.node.opDesc.type === 'Const')
          value = builder.op('Identity', [value], { name: `${name}/output`, ...(value.desc ? { outputDescs: [{ ...value.desc }] } : {}) });
        emitted.add(value);
        outputs.push({ name, value });
      });
    }
    if (outputs.length === 0) throw TsgeError.of('TSGE-E3301', { reason: 'the graph has no outputs' });
    for (const o of outputs) builder.output(o.value, o.name);
    const graph = builder.build();
    graph.attrs.set(
      '_opset_imports',
      attr.namedAttrs({ name: 'opset_imports', attrs: new Map([['ai.onnx', attr.int(MINDIR_ONNX_OPSET)]]) }),
    );
    if (model.producer_version) graph.attrs.set('_producer', attr.string(`MindSpore ${model.producer_version}`));
    if (options.outputNodes?.length)
      diagnostics.push(
        diagnostic(
          'TSGE-E3304',
          { node: 'graph', op: 'outputs', reason: '--out_nodes is not supported for MindIR; the graph keeps its outputs' },
          undefined,
          'warning',
        ),
      );
    return { graph, diagnostics };
  } catch (error) {
    if (TsgeError.isInstance(error))
      return {
        graph: undefined,
        diagnostics: [
          ...diagnostics,
          ...(error.diagnostics.length ? error.diagnostics : [diagnostic('TSGE-E3301', { reason: error.message })]),
        ],
      };
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { graph: undefined, diagnostics: [...diagnostics, diagnostic('TSGE-E3301', { reason }, file ? { file } : undefined)] };
  }
}

function flatten(v: MsValue): MsValue[] {
  return v.kind === 'tuple' ? v.items.flatMap(flatten) : v.kind === 'monad' ? [] : [v];
}

/** Load(x, u) and Depend(x, ...) are x; UpdateState is a monad; tuples are built and indexed. */
function pseudo(op: string, node: string, inputs: readonly MsValue[]): MsValue {
  const fail = (reason: string): never => {
    throw TsgeError.of('TSGE-E3304', { node, op, reason }, { node });
  };
  switch (op) {
    case 'Load':
    case 'Depend':
    case 'depend':
    case 'Return':
    case 'return':
      return inputs[0] ?? fail('needs an input');
    case 'UpdateState':
      return { kind: 'monad' };
    case 'MakeTuple':
    case 'make_tuple':
      return { kind: 'tuple', items: inputs };
    default: {
      const tuple = inputs[0];
      const index = inputs[1];
      const at =
        index?.kind === 'const'
          ? Number(index.tensor.data[0])
          : index?.kind === 'attr' && typeof index.value === 'number'
            ? index.value
            : Number.NaN;
      if (tuple?.kind !== 'tuple') return fail('its first input is not a tuple');
      const item = tuple.items[at];
      if (!item) return fail(`index ${at} is outside the tuple of ${tuple.items.length}`);
      if (item.kind === 'attr' && typeof item.value === 'object' && item.value !== null && 'none' in item.value)
        return fail(`output ${at} of the producer is not supported`);
      return item;
    }
  }
}
