import { describeComputedMatMulPlan, isComputedMatMulPlan } from './computed-matmul-plan.js';
import { CONV_PLAN, describeConvPlan } from './conv-plan.js';
import { INT_CONV_PLAN, describeIntConvPlan } from './int-conv-plan.js';
import { INT_MATMUL_PLAN, describeIntMatMulPlan } from './int-matmul-plan.js';
import { MATMUL_PLAN, describeMatMulPlan } from './matmul-plan.js';
import { POOL_PLAN, describePoolPlan } from './pool-plan.js';

/** Each node attribute a kernel plan of this library is recorded in, with how to put it in words. */
const DESCRIBERS: ReadonlyMap<string, (ints: readonly number[]) => string> = new Map([
  [CONV_PLAN, describeConvPlan],
  [INT_CONV_PLAN, describeIntConvPlan],
  [INT_MATMUL_PLAN, describeIntMatMulPlan],
  // a PackedMatMul's, or (its own version) a MatMul's with a computed B
  [MATMUL_PLAN, (ints) => (isComputedMatMulPlan(ints) ? describeComputedMatMulPlan(ints) : describeMatMulPlan(ints))],
  [POOL_PLAN, describePoolPlan],
]);

/** The names of the node attributes that hold this library's recorded kernel plans. */
export const KERNEL_PLAN_ATTRS: readonly string[] = [...DESCRIBERS.keys()];

/** A recorded plan in words (for `atc --mode=6`): path, tiles and the threads they were split for; undefined for another attribute. */
export function describeKernelPlan(attrName: string, ints: readonly number[]): string | undefined {
  return DESCRIBERS.get(attrName)?.(ints);
}
