import type { DeviceFactoryV1, HostTensor } from '@tsge/metadef';
import { GraphBuilder, TsgeError, createTensorDesc } from '@tsge/metadef';
import { createJsDevice } from '@tsge/runtime';
import { describe, expect, it } from 'vitest';
import { openModel } from '../open-model.js';
import { assembleModel } from '../testing/assemble-model.fixture.js';
import { TEST_DOMAIN } from '../testing/test-kernels.fixture.js';

const kernelModules = [new URL('../testing/test-kernels.fixture.ts', import.meta.url)];

/** y = Relu(x + w) with the test library's kernels. */
function graph() {
  const b = new GraphBuilder('device');
  const desc = createTensorDesc('float32', [4]);
  const x = b.input('x', 'float32', [4]);
  const w = b.constant('w', new Float32Array([1, -2, 3, -4]), [4]);
  const sum = b.op('Add', [x, w], { name: 'add', domain: TEST_DOMAIN, outputDescs: [desc] });
  b.output(b.op('Relu', [sum], { name: 'relu', domain: TEST_DOMAIN, outputDescs: [desc] }), 'y');
  return b.build();
}
const feeds = { x: { type: 'float32', dims: [4], data: new Float32Array([1, 1, 1, 1]) } };
const y = (out: Record<string, unknown>): number[] => Array.from((out.y as HostTensor).data as Float32Array);

describe('device selection', () => {
  it('runs on the js device by option and by the .om target, with the same outputs as the cpu device', async () => {
    const cpu = await openModel(assembleModel(graph()), { kernelModules, threads: 1 });
    const byOption = await openModel(assembleModel(graph()), { kernelModules, device: 'js', threads: 4 });
    const byTarget = await openModel(assembleModel(graph(), { target: 'js' }), { kernelModules });
    expect(cpu.device).toMatch(/^cpu-wasm/);
    expect([byOption.device, byTarget.device]).toEqual(['js', 'js']);
    // the js device has no workers: every run is on the calling thread whatever threads says
    expect(byOption.threads).toBe(1);
    for (const e of [cpu, byOption, byTarget]) {
      expect(y(await e.run(feeds))).toEqual([2, 0, 4, 0]);
      await e.release();
    }
  });

  it('rejects an unknown device name with TSGE-E6200 listing the registered devices', async () => {
    const error = await openModel(assembleModel(graph()), { kernelModules, device: 'gpu' }).catch((e: unknown) => e);
    expect(TsgeError.isInstance(error) && error.code).toBe('TSGE-E6200');
    expect((error as Error).message).toMatch(/LoadModelOptions\.device: unknown device "gpu"; the registered devices are cpu, js/);
    const noDevice = await openModel(assembleModel(graph(), { target: 'npu' }), { kernelModules }).catch((e: unknown) => e);
    expect((noDevice as Error).message).toMatch(/TSGE-E6200.*"npu".*cpu, js/);
  });

  it('uses a device registered by the caller under its name', async () => {
    const made: string[] = [];
    const mine: DeviceFactoryV1 = {
      specVersion: 'v1',
      name: 'mine',
      targets: ['npu'],
      kernelKinds: ['host'],
      unavailable: () => undefined,
      create(options) {
        made.push(`${options.initialBytes > 0}`);
        return { ...createJsDevice(options), name: 'mine' };
      },
    };
    const executor = await openModel(assembleModel(graph(), { target: 'npu' }), { kernelModules, devices: [mine] });
    expect(executor.device).toBe('mine');
    expect(made).toEqual(['true']);
    expect(y(await executor.run(feeds))).toEqual([2, 0, 4, 0]);
    await executor.release();
  });
});
