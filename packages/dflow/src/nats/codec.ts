import { type MsgHdrs, headers as createHeaders } from '@nats-io/nats-core';
import { type DataType, type HostTensor, TsgeError, storageConstructor } from '@tsge/metadef';
import { type FlowMessage, type MessageHeader, isRawBytes } from '../message.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const MAX_DIMS = 16;

/** A flow message as NATS headers (its header fields) and a payload (tensor bytes, raw bytes or an error). */
export function encodeMessage(message: FlowMessage): { headers: MsgHdrs; payload: Uint8Array } {
  const h = createHeaders();
  const { header } = message;
  h.set('Tsge-Txn', String(header.transactionId));
  h.set('Tsge-Seg', String(header.segment));
  h.set('Tsge-Flags', `${header.segmentEnd ? 'end' : ''}${header.eos ? ',eos' : ''}`);
  h.set('Tsge-Fed', String(header.fedAt));
  if (header.processedAt !== undefined) h.set('Tsge-Processed', String(header.processedAt));
  if (header.userData) h.set('Tsge-User', Buffer.from(header.userData).toString('base64'));
  if (header.batchId !== undefined) h.set('Tsge-Batch', header.batchId);
  if (message.error) {
    h.set('Tsge-Kind', 'error');
    return { headers: h, payload: encoder.encode(JSON.stringify({ code: message.error.code, message: message.error.message })) };
  }
  const value = message.value;
  if (value === undefined || isRawBytes(value)) {
    h.set('Tsge-Kind', 'bytes');
    return { headers: h, payload: value ?? new Uint8Array(0) };
  }
  h.set('Tsge-Kind', 'tensor');
  h.set('Tsge-Dtype', value.type);
  h.set('Tsge-Dims', value.dims.join(','));
  if (Array.isArray(value.data)) return { headers: h, payload: encoder.encode(JSON.stringify(value.data)) };
  const data = value.data as Uint8Array;
  return { headers: h, payload: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}

const BATCH_ID = /^batch\.[0-9a-f]{32}$/;

/** Reads a message back, checking everything (it came over the network): a bad one becomes TSGE-E8114. */
export function decodeMessage(headers: MsgHdrs | undefined, payload: Uint8Array): FlowMessage {
  const fail = (reason: string): never => {
    throw TsgeError.of('TSGE-E8114', { reason: `bad flow message: ${reason}` });
  };
  if (!headers) fail('no headers');
  const h = headers as MsgHdrs;
  const int = (name: string): number => {
    const v = Number(h.get(name));
    if (!Number.isSafeInteger(v) || v < 0) fail(`${name} is not a non-negative integer`);
    return v;
  };
  const flags = h.get('Tsge-Flags').split(',');
  const user = h.get('Tsge-User');
  const processed = h.get('Tsge-Processed');
  const batch = h.get('Tsge-Batch');
  if (batch && !BATCH_ID.test(batch)) fail('Tsge-Batch is not a batch id');
  const header: MessageHeader = {
    transactionId: int('Tsge-Txn'),
    segment: int('Tsge-Seg'),
    segmentEnd: flags.includes('end'),
    eos: flags.includes('eos'),
    ...(user ? { userData: new Uint8Array(Buffer.from(user, 'base64')) } : {}),
    fedAt: Number(h.get('Tsge-Fed')),
    ...(processed ? { processedAt: Number(processed) } : {}),
    ...(batch ? { batchId: batch } : {}),
  };
  const kind = h.get('Tsge-Kind');
  if (kind === 'error') {
    let parsed: { code?: unknown; message?: unknown };
    try {
      parsed = JSON.parse(decoder.decode(payload));
    } catch {
      return fail('error payload is not JSON');
    }
    return { header, error: new TsgeError(String(parsed.code), String(parsed.message)) };
  }
  if (kind === 'bytes') return { header, value: payload.slice() };
  if (kind !== 'tensor') fail(`unknown kind ${kind}`);
  const type = h.get('Tsge-Dtype') as DataType;
  const dimsText = h.get('Tsge-Dims');
  const dims = dimsText === '' ? [] : dimsText.split(',').map(Number);
  if (dims.length > MAX_DIMS || dims.some((d) => !Number.isSafeInteger(d) || d < 0)) fail(`bad dims ${dimsText}`);
  const count = dims.reduce((a, b) => a * b, 1);
  if (type === 'string') {
    let data: unknown;
    try {
      data = JSON.parse(decoder.decode(payload));
    } catch {
      return fail('string tensor payload is not JSON');
    }
    if (!Array.isArray(data) || data.length !== count || !data.every((s) => typeof s === 'string'))
      fail('string tensor payload does not match its dims');
    return { header, value: { type, dims, data: data as string[] } };
  }
  const Ctor = storageConstructor(type) ?? fail(`unknown dtype ${type}`);
  if (payload.byteLength !== count * Ctor.BYTES_PER_ELEMENT) fail(`${payload.byteLength} bytes for ${type}[${dims.join(',')}]`);
  const data = new Ctor(count);
  new Uint8Array(data.buffer).set(payload);
  return { header, value: { type, dims, data } as HostTensor };
}
