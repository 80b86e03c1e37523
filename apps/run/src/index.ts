export { runModel, formatReport, type RunReport } from './run.js';
export { parseRunArgs, parseShapeList, USAGE, type RunArgs } from './cli-args.js';
export { encodeNpy, decodeNpy } from './npy.js';
export { latencyStats, percentile, type LatencyStats } from './stats.js';
export { compareTensors, runOnnxRuntime, type OutputError } from './compare.js';
export { createRandom, randomTensor, concreteDims } from './random-inputs.js';
export { main } from './main.js';
export { syntheticPage, countRegions } from './synthetic-page.js';
