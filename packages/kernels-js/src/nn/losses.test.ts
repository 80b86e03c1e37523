import { attr } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { lossKernels } from './losses.js';
import { expectClose, f32, runOp, tensorOf, values } from './test-support.fixture.js';

describe('losses', () => {
  const input = f32([2, 3], [-1, -2, -3, -4, -5, -6]);
  const target = tensorOf('int64', [2], [0n, 2n]);
  it('computes NLL loss with reductions, weights and ignore_index', () => {
    expectClose(values(runOp(lossKernels, 'NegativeLogLikelihoodLoss', [input, target])[0]), [3.5]);
    expectClose(values(runOp(lossKernels, 'NegativeLogLikelihoodLoss', [input, target], { reduction: attr.string('none') })[0]), [1, 6]);
    const w = f32([3], [1, 1, 3]);
    expectClose(values(runOp(lossKernels, 'NegativeLogLikelihoodLoss', [input, target, w])[0]), [(1 + 18) / 4]);
    expectClose(
      values(
        runOp(lossKernels, 'NegativeLogLikelihoodLoss', [input, target], { ignore_index: attr.int(2), reduction: attr.string('sum') })[0],
      ),
      [1],
    );
  });
  it('computes softmax cross entropy and log_prob', () => {
    const [loss, logProb] = runOp(lossKernels, 'SoftmaxCrossEntropyLoss', [f32([1, 2], [0, 0]), tensorOf('int32', [1], [1])], {}, 2);
    expectClose(values(loss), [Math.log(2)]);
    expectClose(values(logProb), [-Math.log(2), -Math.log(2)]);
    expect(loss?.dims).toEqual([]);
  });
});
