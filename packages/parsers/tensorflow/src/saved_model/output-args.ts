// FunctionDef bodies name a node's output by its OpDef output argument (`node:arg:index`), while
// GraphDef and the importer use the flat output index. Most ops have a single output argument (a
// tensor or a list), where the flat index is the index; these have several, each one tensor.
const MULTI_OUTPUT_ARGS: Readonly<Record<string, readonly string[]>> = {
  FusedBatchNorm: ['y', 'batch_mean', 'batch_variance', 'reserve_space_1', 'reserve_space_2'],
  FusedBatchNormV2: ['y', 'batch_mean', 'batch_variance', 'reserve_space_1', 'reserve_space_2'],
  FusedBatchNormV3: ['y', 'batch_mean', 'batch_variance', 'reserve_space_1', 'reserve_space_2', 'reserve_space_3'],
  _FusedBatchNormEx: ['y', 'batch_mean', 'batch_variance', 'reserve_space_1', 'reserve_space_2', 'reserve_space_3'],
  Switch: ['output_false', 'output_true'],
  RefSwitch: ['output_false', 'output_true'],
  Merge: ['output', 'value_index'],
  RefMerge: ['output', 'value_index'],
  Unique: ['y', 'idx'],
  UniqueV2: ['y', 'idx'],
  UniqueWithCounts: ['y', 'idx', 'count'],
  UniqueWithCountsV2: ['y', 'idx', 'count'],
  TopK: ['values', 'indices'],
  TopKV2: ['values', 'indices'],
  NonMaxSuppressionV4: ['selected_indices', 'valid_outputs'],
  NonMaxSuppressionV5: ['selected_indices', 'selected_scores', 'valid_outputs'],
  CombinedNonMaxSuppression: ['nmsed_boxes', 'nmsed_scores', 'nmsed_classes', 'valid_detections'],
  MaxPoolWithArgmax: ['output', 'argmax'],
  BroadcastGradientArgs: ['r0', 'r1'],
  QuantizeV2: ['output', 'output_min', 'output_max'],
  Qr: ['q', 'r'],
  Svd: ['s', 'u', 'v'],
  TensorArrayV3: ['handle', 'flow'],
  TensorArrayGradV3: ['grad_handle', 'flow_out'],
  TensorArrayConcatV3: ['value', 'lengths'],
  LSTMBlockCell: ['i', 'cs', 'f', 'o', 'ci', 'co', 'h'],
  BlockLSTM: ['i', 'cs', 'f', 'o', 'ci', 'co', 'h'],
  BlockLSTMV2: ['i', 'cs', 'f', 'o', 'ci', 'co', 'h'],
  GRUBlockCell: ['r', 'u', 'c', 'h'],
  SparseFillEmptyRows: ['output_indices', 'output_values', 'empty_row_indicator', 'reverse_index_map'],
  SparseReshape: ['output_indices', 'output_shape'],
  ListDiff: ['out', 'idx'],
  SetDiff1D: ['out', 'idx'],
};

/**
 * The flat output index of `op`'s output `arg`:`index`, or undefined when `arg` is not one of the
 * op's output arguments. Ops outside the table are taken to have one output argument.
 */
export function flatOutputIndex(op: string, arg: string, index: number): number | undefined {
  const args = Object.hasOwn(MULTI_OUTPUT_ARGS, op) ? MULTI_OUTPUT_ARGS[op] : undefined;
  if (!args) return index;
  const position = args.indexOf(arg);
  return position < 0 || index !== 0 ? undefined : position;
}
