import type { PointSpec } from '../spec.js';
import { createBatchProcessor } from './batch-processor.js';
import { createFunctionProcessor } from './function-processor.js';
import { createGraphProcessor } from './graph-processor.js';
import type { PointProcessor, ProcessorContext } from './processor.js';

/** The processor of a point, in this thread. */
export function createProcessor(point: PointSpec, context: ProcessorContext): Promise<PointProcessor> {
  switch (point.kind) {
    case 'graph':
      return createGraphProcessor(point, context);
    case 'function':
      return createFunctionProcessor(point, context);
    case 'count-batch':
    case 'time-batch':
      return Promise.resolve(createBatchProcessor(point, context));
  }
}
