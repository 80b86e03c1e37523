// Flattens a GraphDef and the FunctionDef library it calls into one node list: every
// `PartitionedCall` / `StatefulPartitionedCall` (and every node whose op is a library function)
// is replaced by its function's body, its nodes renamed `<call>/<node>`, argument references bound
// to the call's inputs, `node:arg:index` references mapped to flat output indices, and references
// to the call's outputs bound to the function's `ret` tensors. Functional control flow (`While`,
// `StatelessWhile`, `If`, `StatelessIf`) is written out as TF1 control flow around the inlined
// cond/body/branch functions (as TensorFlow's own lowering does), which the importer turns into
// Loop and If subgraphs.
import type { IFunctionDef, IGraphDef, INodeDef } from '../internal/proto.js';
import { LIMITS, TfProblem } from '../internal/problem.js';
import { type TensorRef, type TfNode, parseRef } from '../import/tf-node.js';
import { flatOutputIndex } from './output-args.js';

const CALL_OPS = new Set(['PartitionedCall', 'StatefulPartitionedCall']);
const WHILE_OPS = new Set(['While', 'StatelessWhile']);
const IF_OPS = new Set(['If', 'StatelessIf']);
/** Ops whose outputs a FunctionDef names `output:i`. */
const OUTPUT_LIST_OPS = new Set([...CALL_OPS, ...WHILE_OPS, ...IF_OPS]);

export interface InlinedGraph {
  readonly nodes: TfNode[];
  /** A main-graph tensor name (`node`, `node:1`) as the tensor that computes it after inlining. */
  resolve(tensorName: string): TensorRef;
}

interface Scope {
  /** '' for the main graph, `<call>/` inside a function body. */
  readonly prefix: string;
  readonly defs: ReadonlyMap<string, INodeDef>;
  /** Function arguments; undefined for the main graph (GraphDef reference syntax). */
  readonly args: ReadonlyMap<string, TensorRef> | undefined;
  readonly functionName: string | undefined;
  readonly depth: number;
}

type Resolved = { kind: 'data'; ref: TensorRef } | { kind: 'control'; node: string } | { kind: 'none' };

/** Inlines every function call reachable from the main graph. */
export function inlineFunctions(graph: IGraphDef): InlinedGraph {
  const inliner = new Inliner(graph);
  const main: Scope = { prefix: '', defs: defsOf(graph.node ?? [], undefined), args: undefined, functionName: undefined, depth: 0 };
  inliner.process(main);
  return {
    nodes: inliner.nodes,
    resolve: (tensorName) => {
      const r = inliner.resolve(main, tensorName, 'the signature');
      if (r.kind !== 'data')
        throw new TfProblem('TSGE-E3101', { format: 'SavedModel', reason: `tensor name ${tensorName} is not a data tensor` });
      return r.ref;
    },
  };
}

function defsOf(list: readonly INodeDef[], functionName: string | undefined): Map<string, INodeDef> {
  const defs = new Map<string, INodeDef>();
  list.forEach((def, i) => {
    const name = def.name || `node_${i}`;
    if (defs.has(name) && functionName !== undefined)
      throw functionProblem(functionName, name, `node name ${name} is used twice in the function body`);
    defs.set(name, def);
  });
  return defs;
}

function functionProblem(fn: string, node: string, reason: string): TfProblem {
  return new TfProblem('TSGE-E3120', { function: fn, node, reason });
}

class Inliner {
  readonly nodes: TfNode[] = [];
  private readonly library = new Map<string, IFunctionDef>();
  private readonly callOutputs = new Map<string, TensorRef[]>();
  private readonly expanding = new Set<string>();

  constructor(graph: IGraphDef) {
    for (const fn of graph.library?.function ?? []) {
      const name = fn.signature?.name;
      if (name) this.library.set(name, fn);
    }
  }

  private calledFunction(def: INodeDef, scope: Scope, name: string): string | undefined {
    const op = def.op ?? '';
    if (WHILE_OPS.has(op) || IF_OPS.has(op)) return op;
    if (CALL_OPS.has(op)) {
      const fn = def.attr?.f?.func?.name;
      if (!fn) throw functionProblem(scope.functionName ?? op, name, `${op} has no function attribute f`);
      return fn;
    }
    return this.library.has(op) ? op : undefined;
  }

  process(scope: Scope): void {
    for (const [local, def] of scope.defs) {
      const name = scope.prefix + local;
      if (this.calledFunction(def, scope, name) !== undefined) {
        this.expand(scope, local, def);
        continue;
      }
      if (this.nodes.length >= LIMITS.nodes)
        throw new TfProblem('TSGE-E3106', {
          format: 'SavedModel',
          what: 'inlined node count',
          actual: this.nodes.length + 1,
          limit: LIMITS.nodes,
        });
      const inputs: TensorRef[] = [];
      const control: string[] = [];
      for (const text of def.input ?? []) {
        const r = this.resolve(scope, text, name);
        if (r.kind === 'data') inputs.push(r.ref);
        else if (r.kind === 'control') control.push(r.node);
      }
      this.nodes.push({ name, op: def.op ?? '', inputs, control, attr: def.attr ?? {} });
    }
  }

  /** A reference in `scope` (GraphDef syntax in the main graph, FunctionDef syntax in a body). */
  resolve(scope: Scope, text: string, reader: string): Resolved {
    if (!text) throw this.badRef(scope, reader, text, 'an empty input name');
    if (text.startsWith('^')) {
      const local = text.slice(1);
      const def = scope.defs.get(local);
      // control edges into calls and arguments carry no data; the importer orders by data only
      if (!def || this.calledFunction(def, scope, scope.prefix + local) !== undefined) return { kind: 'none' };
      return { kind: 'control', node: scope.prefix + local };
    }
    if (!scope.args) {
      const { ref } = parseRef(text);
      const def = scope.defs.get(ref.node);
      if (def && this.calledFunction(def, scope, ref.node) !== undefined)
        return { kind: 'data', ref: this.callOutput(scope, ref.node, def, ref.index, reader) };
      return { kind: 'data', ref };
    }
    const parts = text.split(':');
    const [local = '', arg, index] = parts;
    if (parts.length === 1 && scope.args.has(local)) return { kind: 'data', ref: scope.args.get(local) as TensorRef };
    const def = scope.defs.get(local);
    if (!def) throw this.badRef(scope, reader, text, `${local}, which is neither an argument nor a node of the function`);
    if (parts.length === 1) return { kind: 'data', ref: this.outputOf(scope, local, def, 0, reader) };
    const i = Number(parts.length === 2 ? arg : index);
    if (parts.length > 3 || !Number.isSafeInteger(i) || i < 0) throw this.badRef(scope, reader, text, 'a malformed tensor reference');
    if (parts.length === 2) return { kind: 'data', ref: this.outputOf(scope, local, def, i, reader) };
    const fn = this.calledFunction(def, scope, scope.prefix + local);
    if (fn !== undefined) {
      // calls list their outputs as `output`; a function used as an op names them by its signature
      const position = OUTPUT_LIST_OPS.has(def.op ?? '')
        ? arg === 'output'
          ? i
          : -1
        : i === 0
          ? (this.library.get(fn)?.signature?.outputArg ?? []).findIndex((a) => a.name === arg)
          : -1;
      if (position < 0) throw this.badRef(scope, reader, text, `${local} has no output ${arg}:${i}`);
      return { kind: 'data', ref: this.callOutput(scope, local, def, position, reader) };
    }
    const flat = flatOutputIndex(def.op ?? '', arg as string, i);
    if (flat === undefined) throw this.badRef(scope, reader, text, `${def.op} has no output argument ${arg}:${i}`);
    return { kind: 'data', ref: { node: scope.prefix + local, index: flat } };
  }

  private outputOf(scope: Scope, local: string, def: INodeDef, index: number, reader: string): TensorRef {
    if (this.calledFunction(def, scope, scope.prefix + local) !== undefined) return this.callOutput(scope, local, def, index, reader);
    return { node: scope.prefix + local, index };
  }

  private callOutput(scope: Scope, local: string, def: INodeDef, index: number, reader: string): TensorRef {
    const outputs = this.expand(scope, local, def);
    const ref = outputs[index];
    if (!ref) throw this.badRef(scope, reader, `${local}:${index}`, `the call ${local} has ${outputs.length} outputs`);
    return ref;
  }

  private badRef(scope: Scope, reader: string, text: string, reason: string): TfProblem {
    if (scope.functionName === undefined)
      return new TfProblem('TSGE-E3101', { format: 'SavedModel', reason: `${reader} reads ${text}: ${reason}` });
    return functionProblem(scope.functionName, reader, `reads ${text}: ${reason}`);
  }

  /** Inlines the call `local` of `scope` once and returns its outputs. */
  private expand(scope: Scope, local: string, def: INodeDef): TensorRef[] {
    const name = scope.prefix + local;
    const done = this.callOutputs.get(name);
    if (done) return done;
    const fnName = this.calledFunction(def, scope, name) as string;
    if (this.expanding.has(name)) throw functionProblem(fnName, name, 'the call reads its own output');
    this.expanding.add(name);
    const inputs: TensorRef[] = [];
    for (const text of def.input ?? []) {
      const r = this.resolve(scope, text, name);
      if (r.kind === 'data') inputs.push(r.ref);
    }
    const op = def.op ?? '';
    const outputs = WHILE_OPS.has(op)
      ? this.lowerWhile(scope, name, def, inputs)
      : IF_OPS.has(op)
        ? this.lowerIf(scope, name, def, inputs)
        : this.inline(scope, name, fnName, inputs, `${name}/`);
    this.expanding.delete(name);
    this.callOutputs.set(name, outputs);
    return outputs;
  }

  /** Inlines function `fnName` called as `name` on `inputs`, its nodes named `<prefix><node>`; returns its outputs. */
  private inline(scope: Scope, name: string, fnName: string, inputs: readonly TensorRef[], prefix: string): TensorRef[] {
    const fn = this.library.get(fnName);
    if (!fn) throw functionProblem(fnName, name, 'the function is not in the graph library');
    if (scope.depth + 1 > LIMITS.functionDepth)
      throw functionProblem(fnName, name, `calls nest deeper than ${LIMITS.functionDepth} (a recursive function?)`);
    const argDefs = fn.signature?.inputArg ?? [];
    if (argDefs.length !== inputs.length)
      throw functionProblem(fnName, name, `the call passes ${inputs.length} inputs; the function takes ${argDefs.length}`);
    const args = new Map<string, TensorRef>(argDefs.map((a, i) => [a.name ?? '', inputs[i] as TensorRef]));
    const body: Scope = { prefix, defs: defsOf(fn.nodeDef ?? [], fnName), args, functionName: fnName, depth: scope.depth + 1 };
    this.process(body);
    const ret = fn.ret ?? {};
    return (fn.signature?.outputArg ?? []).map((a) => {
      const argName = a.name ?? '';
      const text = Object.hasOwn(ret, argName) ? ret[argName] : undefined;
      if (text === undefined) throw functionProblem(fnName, name, `output ${argName} has no ret tensor`);
      const r = this.resolve(body, text, `ret ${argName}`);
      if (r.kind !== 'data') throw functionProblem(fnName, name, `output ${argName} returns ${text}, which is not a data tensor`);
      return r.ref;
    });
  }

  private functionAttr(def: INodeDef, attr: string, name: string): string {
    const fn = def.attr?.[attr]?.func?.name;
    if (!fn) throw functionProblem(def.op ?? '', name, `${def.op} has no function attribute ${attr}`);
    return fn;
  }

  private push(node: TfNode): TensorRef {
    this.nodes.push(node);
    return { node: node.name, index: 0 };
  }

  /** While(inputs) as a TF1 frame: Enter → Merge → cond → LoopCond → Switch → body → NextIteration, Exit. */
  private lowerWhile(scope: Scope, name: string, def: INodeDef, inputs: readonly TensorRef[]): TensorRef[] {
    const cond = this.functionAttr(def, 'cond', name);
    const body = this.functionAttr(def, 'body', name);
    const frame = { frame_name: { s: new TextEncoder().encode(name) }, is_constant: { b: false } };
    const node = (suffix: string, op: string, refs: TensorRef[], attr: TfNode['attr'] = {}): TfNode => ({
      name: `${name}/${suffix}`,
      op,
      inputs: refs,
      control: [],
      attr,
    });
    const merges = inputs.map((ref, k) => {
      const enter = this.push(node(`enter_${k}`, 'Enter', [ref], frame));
      return this.push(node(`merge_${k}`, 'Merge', [enter, { node: `${name}/next_iteration_${k}`, index: 0 }]));
    });
    const [test] = this.inline(scope, name, cond, merges, `${name}/cond/`);
    if (!test) throw functionProblem(cond, name, 'the while condition returns nothing');
    const loopCond = this.push(node('loop_cond', 'LoopCond', [test]));
    const switches = merges.map((m, k) => this.push(node(`switch_${k}`, 'Switch', [m, loopCond])));
    const values = switches.map((s, k) => this.push(node(`identity_${k}`, 'Identity', [{ node: s.node, index: 1 }])));
    const next = this.inline(scope, name, body, values, `${name}/body/`);
    if (next.length !== inputs.length)
      throw functionProblem(body, name, `the while body returns ${next.length} values for ${inputs.length} loop values`);
    for (const [k, ref] of next.entries()) this.push(node(`next_iteration_${k}`, 'NextIteration', [ref]));
    return switches.map((s, k) => this.push(node(`exit_${k}`, 'Exit', [s])));
  }

  /**
   * If(pred, inputs) as a TF1 cond: each input switched on pred, the branches inlined on the
   * switches' outputs, their results merged. Branch nodes without inputs hang on a pivot (as
   * tf.cond's constants do), so they belong to their branch.
   */
  private lowerIf(scope: Scope, name: string, def: INodeDef, inputs: readonly TensorRef[]): TensorRef[] {
    const [pred, ...args] = inputs;
    if (!pred) throw functionProblem(def.op ?? '', name, `${def.op} has no condition input`);
    const node = (suffix: string, op: string, refs: TensorRef[]): TfNode => ({
      name: `${name}/${suffix}`,
      op,
      inputs: refs,
      control: [],
      attr: {},
    });
    const switchPred = this.push(node('switch_pred', 'Switch', [pred, pred]));
    const switches = args.map((a, i) => this.push(node(`switch_${i}`, 'Switch', [a, pred])));
    const branch = (attr: string, side: 0 | 1): TensorRef[] => {
      const pivot = this.push(node(`pivot_${side}`, 'Identity', [{ node: switchPred.node, index: side }]));
      const from = this.nodes.length;
      const outputs = this.inline(
        scope,
        name,
        this.functionAttr(def, attr, name),
        switches.map((s) => ({ node: s.node, index: side })),
        `${name}/${attr}/`,
      );
      for (let i = from; i < this.nodes.length; i++) {
        const n = this.nodes[i] as TfNode;
        if (!n.inputs.length && !n.control.length) this.nodes[i] = { ...n, control: [pivot.node] };
      }
      return outputs;
    };
    const whenTrue = branch('then_branch', 1);
    const whenFalse = branch('else_branch', 0);
    if (whenTrue.length !== whenFalse.length)
      throw functionProblem(def.op ?? '', name, `the branches return ${whenTrue.length} and ${whenFalse.length} values`);
    return whenTrue.map((t, k) => this.push(node(`merge_${k}`, 'Merge', [whenFalse[k] as TensorRef, t])));
  }
}
