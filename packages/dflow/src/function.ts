import type { FlowValue, MessageHeader } from './message.js';

/** A JSON value: what `init` parameters may hold (they are stored in flow models and deployments). */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** What `proc` returns: one entry per output of the process point (`undefined`: nothing on it). */
export type ProcResult = readonly (FlowValue | undefined)[] | undefined;

export interface InitContext {
  /** The node this instance runs for, and which of its instances it is. */
  readonly node: string;
  readonly instance: number;
}

export interface ProcContext extends InitContext {
  /** The header of the (first) input message. */
  readonly header: MessageHeader;
  /**
   * Sends one message now, before `proc` returns: a function that splits its input (one message
   * per text line of a page) calls it once per part. Parts get segment indexes 0, 1, ... and only
   * the last one sent carries `segmentEnd`. A value returned by `proc` is sent after them.
   */
  emit(outputs: readonly (FlowValue | undefined)[]): void;
}

export type ProcFunction = (inputs: readonly FlowValue[], context: ProcContext) => ProcResult | Promise<ProcResult>;

/**
 * A user function (GE's UDF), referenced by module specifier and export name. `init` runs once per
 * instance with the point's parameters; `proc` (or the named `procs` of a multi-function point)
 * runs per aligned set of inputs and returns its outputs or throws, which is delivered to `fetch`
 * with the transaction id.
 */
export interface FlowFunctionV1 {
  readonly specVersion: 'v1';
  init?(params: Readonly<Record<string, JsonValue>>, context: InitContext): void | Promise<void>;
  readonly proc?: ProcFunction;
  readonly procs?: Readonly<Record<string, ProcFunction>>;
  /** Frees what `init` took, when the session closes. */
  close?(): void | Promise<void>;
}

/**
 * What a function module exports under the referenced name: a FlowFunctionV1, or a factory that
 * makes one per instance (so that instances do not share state).
 */
export type FlowFunctionExport = FlowFunctionV1 | (() => FlowFunctionV1 | Promise<FlowFunctionV1>);
