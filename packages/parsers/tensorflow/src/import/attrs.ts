import type { DataType } from '@tsge/metadef';
import type { IAttrValue } from '../internal/proto.js';
import { nodeProblem, toInt } from '../internal/problem.js';
import { tfDtype } from './dtype.js';
import { shapeOf } from './tensor.js';
import type { TfNode } from './tf-node.js';

const decoder = new TextDecoder();

/** Typed reads of a TF node's attributes; a missing or mistyped one is a node problem. */
export class TfAttrs {
  constructor(private readonly node: TfNode) {}

  has(name: string): boolean {
    return this.node.attr[name] !== undefined;
  }
  private get(name: string): IAttrValue | undefined {
    return this.node.attr[name];
  }
  private missing(name: string, what: string): never {
    throw nodeProblem(this.node.name, this.node.op, `attribute ${name} is missing or is not ${what}`);
  }

  int(name: string, fallback?: number): number {
    const a = this.get(name);
    if (a?.i !== undefined && a.i !== null) return toInt(a.i, name);
    if (fallback !== undefined) return fallback;
    return this.missing(name, 'an int');
  }
  float(name: string, fallback?: number): number {
    const a = this.get(name);
    if (typeof a?.f === 'number') return a.f;
    if (fallback !== undefined) return fallback;
    return this.missing(name, 'a float');
  }
  bool(name: string, fallback?: boolean): boolean {
    const a = this.get(name);
    if (typeof a?.b === 'boolean') return a.b;
    if (fallback !== undefined) return fallback;
    return this.missing(name, 'a bool');
  }
  string(name: string, fallback?: string): string {
    const a = this.get(name);
    if (a?.s !== undefined && a.s !== null) return typeof a.s === 'string' ? a.s : decoder.decode(a.s);
    if (fallback !== undefined) return fallback;
    return this.missing(name, 'a string');
  }
  ints(name: string, fallback?: readonly number[]): number[] {
    const a = this.get(name);
    if (a?.list) return (a.list.i ?? []).map((v) => toInt(v, name));
    if (fallback !== undefined) return [...fallback];
    return this.missing(name, 'a list of ints');
  }
  floats(name: string, fallback?: readonly number[]): number[] {
    const a = this.get(name);
    if (a?.list) return [...(a.list.f ?? [])];
    if (fallback !== undefined) return [...fallback];
    return this.missing(name, 'a list of floats');
  }
  strings(name: string, fallback?: readonly string[]): string[] {
    const a = this.get(name);
    if (a?.list) return (a.list.s ?? []).map((s) => (typeof s === 'string' ? s : decoder.decode(s)));
    if (fallback !== undefined) return [...fallback];
    return this.missing(name, 'a list of strings');
  }
  dtype(name: string, fallback?: DataType): DataType {
    const a = this.get(name);
    if (a?.type !== undefined && a.type !== null) return tfDtype(a.type, `${this.node.name} attribute ${name}`);
    if (fallback !== undefined) return fallback;
    return this.missing(name, 'a data type');
  }
  /** A shape attribute: dims with -1 unknown, undefined for unknown rank or absent. */
  shape(name: string): number[] | undefined {
    const a = this.get(name);
    return a?.shape ? shapeOf(a.shape) : undefined;
  }
  raw(name: string): IAttrValue | undefined {
    return this.get(name);
  }
}
