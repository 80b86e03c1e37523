import type { KernelRegistry, OpRegistry } from '@tsge/metadef';
import { TSGE_DOMAIN } from '@tsge/metadef';
import { fusedKernels } from '@tsge/kernels-js';
import { fusedDefinitions } from '@tsge/ops';

/**
 * The fused ops (`tsge::FusedConv`, `FusedGemm`, `FusedMatMul`) ship with @tsge/ops, so the default
 * registries already hold them. For registries a caller built itself, this adds the fused
 * definitions and kernels composed over whatever base ops and kernels they hold.
 */
export function registerFusedOps(ops: OpRegistry, kernels: KernelRegistry): void {
  for (const def of fusedDefinitions(ops.list())) if (!ops.has(def.type, TSGE_DOMAIN)) ops.register(def);
  const present = new Set(
    kernels
      .list()
      .filter((k) => k.domain === TSGE_DOMAIN)
      .map((k) => `${k.opType}/${k.name}`),
  );
  for (const kernel of fusedKernels(kernels.list())) if (!present.has(`${kernel.opType}/${kernel.name}`)) kernels.register(kernel);
}
