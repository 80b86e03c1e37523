import { TsgeError } from '../errors/tsge-error.js';
import type { DeviceFactoryV1 } from './device.js';

/** Devices by name, in precedence order (a later factory with a taken name is shadowed). */
export interface DeviceRegistry {
  /** The factory of this name; an unknown name is TSGE-E6200 listing the registered ones. */
  get(name: string, option?: string): DeviceFactoryV1;
  /** The first available device that runs models of this `.om` target, if any. */
  forTarget(target: string): DeviceFactoryV1 | undefined;
  names(): readonly string[];
}

export function createDeviceRegistry(factories: readonly DeviceFactoryV1[]): DeviceRegistry {
  const byName = new Map<string, DeviceFactoryV1>();
  for (const factory of factories) if (!byName.has(factory.name)) byName.set(factory.name, factory);
  const names = (): string[] => [...byName.keys()];
  return {
    get(name, option = 'device') {
      const factory = byName.get(name);
      if (!factory) throw TsgeError.of('TSGE-E6200', { option, value: JSON.stringify(name), devices: names().join(', ') });
      const reason = factory.unavailable();
      if (reason !== undefined) throw TsgeError.of('TSGE-E6201', { device: name, reason });
      return factory;
    },
    forTarget: (target) => [...byName.values()].find((f) => f.targets.includes(target) && f.unavailable() === undefined),
    names,
  };
}
