import { type HostTensor, createTensor } from '@tsge/metadef';
import { malformed } from '../internal/problem.js';
import type { RawNode } from './raw-node.js';

/** The tensor a `Constant` node produces, from any of its value_* attribute forms. */
export function constantValue(node: RawNode): HostTensor {
  for (const [name, a] of node.attrs) {
    switch (name) {
      case 'value':
      case 'sparse_value':
        if (a.kind === 'tensor') return a.value;
        break;
      case 'value_float':
        if (a.kind === 'float' || a.kind === 'int') return createTensor('float32', [], Float32Array.of(a.value));
        break;
      case 'value_floats':
        if (a.kind === 'floats' || a.kind === 'ints') return createTensor('float32', [a.value.length], Float32Array.from(a.value));
        break;
      case 'value_int':
        if (a.kind === 'int') return createTensor('int64', [], BigInt64Array.of(BigInt(a.value)));
        break;
      case 'value_ints':
        if (a.kind === 'ints') return createTensor('int64', [a.value.length], BigInt64Array.from(a.value.map((v) => BigInt(v))));
        break;
      case 'value_string':
        if (a.kind === 'string') return createTensor('string', [], [a.value]);
        break;
      case 'value_strings':
        if (a.kind === 'strings') return createTensor('string', [a.value.length], [...a.value]);
        break;
    }
  }
  throw malformed(`Constant node ${node.name} has no value attribute`);
}
