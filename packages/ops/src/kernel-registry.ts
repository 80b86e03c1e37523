import type { DataType, KernelRegistry, KernelV1 } from '@tsge/metadef';
import { TsgeError, normalizeDomain } from '@tsge/metadef';

/** A kernel registry; several implementations of one op may coexist under different names. */
export function createKernelRegistry(kernels: Iterable<KernelV1> = []): KernelRegistry {
  const byOp = new Map<string, KernelV1[]>();
  const key = (opType: string, domain: string): string => `${normalizeDomain(domain)}::${opType}`;
  const registry: KernelRegistry = {
    register(kernel) {
      const k = key(kernel.opType, kernel.domain);
      const list = byOp.get(k) ?? [];
      if (list.some((other) => other.name === kernel.name)) {
        throw TsgeError.of('TSGE-E4005', { op: `${k} kernel ${kernel.name}` });
      }
      list.push(kernel);
      byOp.set(k, list);
    },
    find(opType, domain, dtype: DataType | undefined, preference = ['reference']) {
      const list = byOp.get(key(opType, domain));
      if (!list) return undefined;
      const fits = list.filter((k) => dtype === undefined || !k.dtypes || k.dtypes.includes(dtype));
      for (const name of preference) {
        const k = fits.find((c) => c.name === name);
        if (k) return k;
      }
      return fits[0];
    },
    list: () => [...byOp.values()].flat(),
  };
  for (const k of kernels) registry.register(k);
  return registry;
}
