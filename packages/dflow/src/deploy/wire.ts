import { TsgeError } from '@tsge/metadef';
import type { Emission } from '../engine/processor.js';
import type { FlowMessage, FlowValue, MessageHeader } from '../message.js';
import { isRawBytes } from '../message.js';
import type { NodeSpec } from '../spec.js';

/** An error as it crosses a thread, process or network boundary. */
export interface WireError {
  readonly code: string;
  readonly message: string;
}

export interface WireMessage {
  readonly header: MessageHeader;
  readonly value?: FlowValue;
  readonly error?: WireError;
}

/** What a point host is told (parent → host). */
export type HostRequest =
  | { readonly type: 'init'; readonly node: NodeSpec; readonly instance: number; readonly submodel?: Uint8Array }
  | { readonly type: 'process'; readonly id: number; readonly group: number; readonly inputs: readonly WireMessage[] }
  | { readonly type: 'close' };

/** What a point host answers (host → parent). */
export type HostReply =
  | { readonly type: 'ready' }
  | { readonly type: 'result'; readonly id: number; readonly emissions: readonly Emission[]; readonly procMs: number }
  | { readonly type: 'failed'; readonly id: number | undefined; readonly error: WireError }
  | { readonly type: 'later'; readonly emissions: readonly Emission[] }
  | { readonly type: 'later-failed'; readonly header: MessageHeader; readonly error: WireError }
  | { readonly type: 'closed' };

export function toWireError(error: unknown): WireError {
  if (TsgeError.isInstance(error)) return { code: error.code, message: error.message };
  return { code: 'TSGE-E8108', message: error instanceof Error ? error.message : String(error) };
}

export function fromWireError(error: WireError): TsgeError {
  return new TsgeError(error.code, error.message);
}

export function toWire(message: FlowMessage): WireMessage {
  return message.error ? { header: message.header, error: toWireError(message.error) } : (message as WireMessage);
}

export function fromWire(message: WireMessage): FlowMessage {
  return message.error ? { header: message.header, error: fromWireError(message.error) } : (message as FlowMessage);
}

/** The buffers of `values` that may be moved rather than copied (not shared memory). */
export function transferables(values: readonly (FlowValue | undefined)[]): ArrayBuffer[] {
  const seen = new Set<ArrayBuffer>();
  for (const v of values) {
    if (v === undefined) continue;
    const data = isRawBytes(v) ? v : v.data;
    if (Array.isArray(data)) continue; // string tensors
    const buffer = (data as Uint8Array).buffer;
    if (buffer instanceof ArrayBuffer) seen.add(buffer);
  }
  return [...seen];
}
