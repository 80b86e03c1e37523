import { TsgeError } from '@tsge/metadef';
import type { KernelCall } from '../model/kernel-call.js';

/** Wraps what a kernel threw as TSGE-E6007 naming the node and op (kept as is when it already names them). */
export function kernelFailure(call: Pick<KernelCall, 'node' | 'opType' | 'domain'>, error: unknown): TsgeError {
  if (TsgeError.isInstance(error) && error.code === 'TSGE-E6007') return error;
  const reason = error instanceof Error ? error.message : String(error);
  return TsgeError.of(
    'TSGE-E6007',
    { op: call.opType, node: call.node, reason },
    { node: call.node, opType: call.opType, domain: call.domain },
    error,
  );
}

export function kernelError(call: Pick<KernelCall, 'node' | 'opType' | 'domain'>, reason: string): TsgeError {
  return TsgeError.of(
    'TSGE-E6007',
    { op: call.opType, node: call.node, reason },
    { node: call.node, opType: call.opType, domain: call.domain },
  );
}
