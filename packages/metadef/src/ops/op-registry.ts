import { TsgeError } from '../errors/tsge-error.js';
import { normalizeDomain } from '../graph/op-desc.js';
import type { OpDefinitionV1 } from './op-definition.js';

/** A registry of op definitions keyed by domain and type. Registering a duplicate throws. */
export interface OpRegistry {
  register(def: OpDefinitionV1): void;
  get(type: string, domain?: string): OpDefinitionV1 | undefined;
  has(type: string, domain?: string): boolean;
  list(): readonly OpDefinitionV1[];
}

export function opKey(type: string, domain = ''): string {
  return `${normalizeDomain(domain)}::${type}`;
}

export function createOpRegistry(definitions: Iterable<OpDefinitionV1> = []): OpRegistry {
  const table = new Map<string, OpDefinitionV1>();
  const registry: OpRegistry = {
    register(def) {
      if (def.specVersion !== 'v1')
        throw TsgeError.of('TSGE-E1099', { message: `op ${def.type}: unknown specVersion ${String(def.specVersion)}` });
      const key = opKey(def.type, def.domain);
      if (table.has(key)) throw TsgeError.of('TSGE-E4005', { op: key });
      table.set(key, def);
    },
    get: (type, domain = '') => table.get(opKey(type, domain)),
    has: (type, domain = '') => table.has(opKey(type, domain)),
    list: () => [...table.values()],
  };
  for (const d of definitions) registry.register(d);
  return registry;
}
