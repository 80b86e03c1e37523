import type { Diagnostic } from '../errors/diagnostic.js';
import type { Graph } from '../graph/graph.js';
import type { Shape } from '../types/shape.js';

/** What a parser is given: the main file's bytes and a way to read side files (weights, external data). */
export interface ParseInput {
  readonly bytes: Uint8Array;
  /** Path of the main file, for diagnostics and to locate side files. */
  readonly path?: string;
  /**
   * Reads a file relative to the model's folder. Implementations must refuse paths that escape
   * that folder. Absent when parsing from bytes alone.
   */
  readonly readRelative?: (relativePath: string) => Promise<Uint8Array>;
  /**
   * Reads exactly `length` bytes at `offset` of a file relative to the model's folder (external
   * data), under the same confinement, and rejects a range past the end of the file. Parsers
   * prefer it to `readRelative` when both are given, so only the bytes a tensor needs are read.
   */
  readonly readRange?: (relativePath: string, offset: number, length: number) => Promise<Uint8Array>;
}

export interface ParseOptions {
  /** Overrides of input shapes by input name (`--input_shape`). */
  readonly inputShapes?: ReadonlyMap<string, Shape>;
  /** Graph outputs to keep (`--out_nodes`): `name` or `name:index`. */
  readonly outputNodes?: readonly string[];
  /** Extra options a parser understands (e.g. `weightsPath` for Caffe). */
  readonly extra?: Readonly<Record<string, unknown>>;
}

export interface ParseResult {
  /** The graph, or undefined when errors made one impossible. */
  readonly graph: Graph | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

/** A framework parser: sniffs its format and turns a file into a Graph in the canonical op set. */
export interface ParserV1 {
  readonly specVersion: 'v1';
  /** Short name: 'onnx', 'tensorflow', 'caffe', 'mindspore', 'tfjs'. */
  readonly name: string;
  /** GE framework number (0 Caffe, 1 MindSpore, 3 TensorFlow, 5 ONNX). */
  readonly framework: number;
  readonly extensions: readonly string[];
  /** Confidence 0..1 that these bytes are this parser's format (0 = no). */
  sniff(bytes: Uint8Array, path?: string): number;
  parse(input: ParseInput, options?: ParseOptions): Promise<ParseResult>;
}
