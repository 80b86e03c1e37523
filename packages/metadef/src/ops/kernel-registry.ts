import type { DataType } from '../types/dtype.js';
import type { KernelLibraryV1, KernelRegistry, KernelV1, TileFunctionV1 } from '../spi/kernel.js';
import { TsgeError } from '../errors/tsge-error.js';
import { normalizeDomain } from '../graph/op-desc.js';

/**
 * The one kernel registry. Several implementations of one op coexist under different names; `find`
 * takes the first name of `preference` that has a kernel fitting the dtype, else the first fitting
 * kernel registered. Registering a second kernel under an op's existing implementation name is an
 * error (TSGE-E4005): precedence between libraries is explicit, through `createKernelRegistryOf`.
 */
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
    has: (opType, domain, name) => (byOp.get(key(opType, domain)) ?? []).some((k) => k.name === name),
    list: () => [...byOp.values()].flat(),
  };
  for (const k of kernels) registry.register(k);
  return registry;
}

/** The registry of a set of kernel libraries: their kernels, and their tile functions by name. */
export interface LibraryKernelRegistry extends KernelRegistry {
  /** The tile function of this name (an earlier library's first), for the executor's helper threads. */
  tile(name: string): TileFunctionV1 | undefined;
}

/**
 * A registry over kernel libraries in precedence order: a kernel (or tile function) of an earlier
 * library shadows the one of a later library with the same op, domain and implementation name (or
 * tile name). User libraries are listed before the defaults, so they replace a default kernel by
 * registering its name.
 */
export function createKernelRegistryOf(libraries: readonly Pick<KernelLibraryV1, 'kernels' | 'tiles'>[]): LibraryKernelRegistry {
  const registry = createKernelRegistry();
  const tiles = new Map<string, TileFunctionV1>();
  for (const library of libraries) {
    for (const kernel of library.kernels) {
      if (!registry.has(kernel.opType, kernel.domain, kernel.name)) registry.register(kernel);
    }
    for (const tile of library.tiles) if (!tiles.has(tile.name)) tiles.set(tile.name, tile);
  }
  return { ...registry, tile: (name) => tiles.get(name) };
}
