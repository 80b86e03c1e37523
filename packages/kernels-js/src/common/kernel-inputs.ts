import type { HostTensor, KernelContextV1 } from '@tsge/metadef';
import { TsgeError } from '@tsge/metadef';

/**
 * Input checks every kernel group shares (math, nn, tensor used their own identical copies): a
 * missing input or a bad value is a kernel failure caused by the model, TSGE-E4003 naming the node.
 */

/** Input i as a tensor, or a kernel error naming the node. */
export function requireTensor(ctx: KernelContextV1, index: number): HostTensor {
  const t = ctx.tensor(index);
  if (!t) throw kernelError(ctx, `input ${index} is required`);
  return t;
}

/** A kernel failure caused by the model or its inputs (TSGE-E4003). */
export function kernelError(ctx: Pick<KernelContextV1, 'opType' | 'nodeName'>, reason: string): TsgeError {
  return TsgeError.of('TSGE-E4003', { reason: `${ctx.opType} ${ctx.nodeName}: ${reason}` });
}
