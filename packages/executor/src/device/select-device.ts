import type { DeviceFactoryV1 } from '@tsge/metadef';
import { TsgeError, createDeviceRegistry } from '@tsge/metadef';
import { cpuDeviceFactory, jsDeviceFactory } from '@tsge/runtime';
import type { LoadModelOptions } from '../options.js';

/** The devices every executor knows, after the ones a load passes in `devices`. */
const BUILTIN_DEVICES: readonly DeviceFactoryV1[] = [cpuDeviceFactory, jsDeviceFactory];

/**
 * The device a model runs on: `options.device` by name, else the first device whose targets include
 * the `.om`'s target. An unknown name (or a target no device runs) is TSGE-E6200 listing the devices.
 */
export function selectDevice(target: string, options: Pick<LoadModelOptions, 'device' | 'devices'>): DeviceFactoryV1 {
  const registry = createDeviceRegistry([...(options.devices ?? []), ...BUILTIN_DEVICES]);
  if (options.device !== undefined) {
    if (typeof options.device !== 'string')
      throw TsgeError.of('TSGE-E6200', {
        option: 'LoadModelOptions.device',
        value: String(options.device),
        devices: registry.names().join(', '),
      });
    return registry.get(options.device, 'LoadModelOptions.device');
  }
  const byTarget = registry.forTarget(target);
  if (byTarget) return byTarget;
  return registry.get(target, 'the .om target (no device runs it; pass LoadModelOptions.device)');
}
