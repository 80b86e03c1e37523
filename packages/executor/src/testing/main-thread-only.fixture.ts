// A kernel module that cannot load in a worker thread (to test start-up failures).
import { isMainThread } from 'node:worker_threads';

if (!isMainThread) throw new Error('this module refuses to load in a worker');
export const kernelLibrary = { specVersion: 'v1', name: 'main-thread-only', device: 'host', kernels: [], tiles: [] };
