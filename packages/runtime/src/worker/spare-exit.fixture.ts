// Run as a script by spare-threads.test.ts: leaves two spare threads behind and must still exit.
import { createCpuDevice } from '../cpu-device.js';
import { spareThreadCount } from './spare-threads.js';

const device = createCpuDevice({ threads: 2, maximumBytes: 1 << 20 });
const word = device.allocate(64) / 4;
const stop = device.allocate(8) / 4;
const pool = device.startWorkers(new URL('./reusable.fixture.ts', import.meta.url), { word, stop });
await pool.ready;
const words = new Int32Array(device.memory.buffer);
Atomics.store(words, stop, 1);
Atomics.notify(words, stop);
await device.release();
console.log(`spares ${spareThreadCount()}`);
