/** Facts of tsge's `.air` encoding shared by the writer and the reader. */

/** Version of tsge's conventions inside a `ge.proto.ModelDef`; files without it are plain GE files. */
export const AIR_FORMAT_VERSION = 1;

/** Model attribute carrying {@link AIR_FORMAT_VERSION}. */
export const ATTR_AIR_VERSION = '_tsge_air_version';
/** Op attribute holding the domain (absent for ai.onnx). */
export const ATTR_DOMAIN = '_domain';
/** Op attributes holding source-model edge names and an output count that differs from the descs. */
export const ATTR_INPUT_NAMES = '_tsge_input_names';
export const ATTR_OUTPUT_NAMES = '_tsge_output_names';
export const ATTR_OUTPUT_COUNT = '_tsge_output_count';
/** Subgraph attributes naming the parent node and the graph that holds it. */
export const ATTR_PARENT_NODE = '_tsge_parent_node';
export const ATTR_PARENT_GRAPH = '_tsge_parent_graph';
/** Tensor-descriptor attributes. GE's own names for origin shape/format and shape range. */
export const ATTR_DTYPE = '_tsge_dtype';
export const ATTR_SYMBOLS = '_tsge_symbols';
export const ATTR_ORIGIN_SHAPE = 'origin_shape';
export const ATTR_ORIGIN_FORMAT = 'origin_format';
export const ATTR_ORIGIN_SYMBOLS = '_tsge_origin_symbols';
export const ATTR_SHAPE_RANGE = 'shape_range';
export const ATTR_VALUE_KIND = '_tsge_value_kind';

/** Op attributes the reader consumes instead of passing them on. */
export const RESERVED_OP_ATTRS: ReadonlySet<string> = new Set([ATTR_DOMAIN, ATTR_INPUT_NAMES, ATTR_OUTPUT_NAMES, ATTR_OUTPUT_COUNT]);
export const RESERVED_GRAPH_ATTRS: ReadonlySet<string> = new Set([ATTR_PARENT_NODE, ATTR_PARENT_GRAPH]);

/**
 * `dt` attribute values for data types GE's proto has no number for: this offset plus the ONNX
 * `TensorProto.DataType` number (a tsge-private range, far above GE's numbers).
 */
export const PRIVATE_DTYPE_OFFSET = 1000;

/** Limits checked before anything is allocated from a count or length read from a file. */
export const AIR_LIMITS = {
  nodes: 10_000_000,
  graphs: 1_000_000,
  rank: 64,
} as const;
