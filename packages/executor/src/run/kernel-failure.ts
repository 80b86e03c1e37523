import { TsgeError, isDeviceError } from '@tsge/metadef';
import type { KernelCall } from '../model/kernel-call.js';

/** Wraps what a kernel threw as TSGE-E6007 naming the node and op (kept as is when it already names them). */
export function kernelFailure(call: Pick<KernelCall, 'node' | 'opType' | 'domain'>, error: unknown): TsgeError {
  // a kernel failure already names its node; a deadline passes through the kernels that run
  // subgraphs; a full run-time arena and a bound output that does not fit name their node/output
  if (
    TsgeError.isInstance(error) &&
    (error.code === 'TSGE-E6007' || error.code === 'TSGE-E6080' || error.code === 'TSGE-E6210' || error.code === 'TSGE-E4154')
  )
    return error;
  if (isDeviceError(error, 'out-of-memory')) return asRunError(error) as TsgeError;
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

/** Maps runtime errors to catalog errors: device memory exhausted → TSGE-E6005, a stuck plan → TSGE-E2006. */
export function asRunError(error: unknown): unknown {
  if (isDeviceError(error, 'out-of-memory'))
    return TsgeError.of('TSGE-E6005', { needed: error.needed ?? '?', limit: error.limit ?? '?' }, undefined, error);
  if (isDeviceError(error, 'deadlock')) return TsgeError.of('TSGE-E2006', { format: 'om', reason: error.message }, undefined, error);
  return error;
}
