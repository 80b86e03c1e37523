import type { PointSpec } from '../spec.js';
import type { PointProcessor, ProcessorContext } from './processor.js';

/** The processor of a point, in this thread (each kind's code is loaded only when a point needs it). */
export async function createProcessor(point: PointSpec, context: ProcessorContext): Promise<PointProcessor> {
  switch (point.kind) {
    case 'graph':
      return (await import('./graph-processor.js')).createGraphProcessor(point, context);
    case 'function':
      return (await import('./function-processor.js')).createFunctionProcessor(point, context);
    case 'count-batch':
    case 'time-batch':
      return (await import('./batch-processor.js')).createBatchProcessor(point, context);
  }
}
