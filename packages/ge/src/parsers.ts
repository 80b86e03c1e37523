import path from 'node:path';
import type { Dim, Graph, OpRegistry, ParseInput, ParserV1 } from '@tsge/metadef';
import { TsgeError, airParser } from '@tsge/metadef';
import { confinedReader, memoryReader, readRegularFile } from './files.js';
import { modelFileOf } from './model-path.js';

/**
 * Parser packages tsge knows by name. They are discovered at run time when installed next to
 * `@tsge/ge` (optional peer dependencies), never imported statically, so users install only the
 * front ends they need.
 */
const KNOWN_PARSER_PACKAGES = [
  '@tsge/parser-onnx',
  '@tsge/parser-tensorflow',
  '@tsge/parser-caffe',
  '@tsge/parser-mindspore',
  '@tsge/parser-tflite',
] as const;

// GE's own IR (.air) is always readable: its parser ships with the IR package itself.
const registered = new Map<string, ParserV1>([[airParser.name, airParser]]);
let discovery: Promise<void> | undefined;

/** Registers a parser (a custom one, or an installed one found without discovery). */
export function registerParser(parser: ParserV1): void {
  if (parser.specVersion !== 'v1') throw TsgeError.of('TSGE-E3005', { reason: `parser ${parser.name} has unknown specVersion` });
  registered.set(parser.name, parser);
}

/** Parsers known now (after discovery). */
export async function listParsers(): Promise<readonly ParserV1[]> {
  await discoverParsers();
  return [...registered.values()];
}

/** Imports every known parser package that is installed; missing ones are skipped. */
export function discoverParsers(): Promise<void> {
  discovery ??= (async () => {
    for (const name of KNOWN_PARSER_PACKAGES) {
      try {
        const mod = (await import(name)) as Record<string, unknown>;
        for (const value of Object.values(mod)) if (isParser(value) && !registered.has(value.name)) registered.set(value.name, value);
      } catch {
        // not installed: that front end is simply unavailable
      }
    }
  })();
  return discovery;
}

function isParser(value: unknown): value is ParserV1 {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<ParserV1>;
  return v.specVersion === 'v1' && typeof v.sniff === 'function' && typeof v.parse === 'function' && typeof v.name === 'string';
}

/**
 * Parsers that apply a build's out_nodes themselves: TensorFlow output names are TF tensor names
 * (`node`, `node:1`) that only the parser knows (Identity nodes vanish in the canonical graph).
 */
export const PARSERS_SELECTING_OUTPUTS: ReadonlySet<string> = new Set(['tensorflow', 'tfjs']);

/** GE framework numbers (atc `--framework`). */
const FRAMEWORK_NAMES: Readonly<Record<number, string>> = { 0: 'caffe', 1: 'mindspore', 3: 'tensorflow', 5: 'onnx' };

export interface ParseModelOptions {
  /** Parser name ('onnx', ...) or GE framework number; sniffed from the bytes when omitted. */
  readonly format?: string | number;
  /** Model file name for diagnostics when `source` is bytes. */
  readonly fileName?: string;
  readonly inputShapes?: Readonly<Record<string, readonly Dim[]>>;
  readonly outNodes?: readonly string[];
  /**
   * The build's out_nodes (`compile.outNodes`), handed to the parser when it is one that names
   * outputs by its own tensor names (`PARSERS_SELECTING_OUTPUTS`), else left to the compiler;
   * `ParsedModel.outNodesApplied` says which.
   */
  readonly buildOutNodes?: readonly string[];
  /** Side file with weights (Caffe `.caffemodel`), read here and handed to the parser as bytes. */
  readonly weightsPath?: string;
  /** Parser-specific options, merged into `ParseOptions.extra` (e.g. Caffe's `initializeWeights`). */
  readonly parserOptions?: Readonly<Record<string, unknown>>;
  /** Op registry used to report unsupported ops at parse time. */
  readonly ops?: OpRegistry;
  /**
   * Side files of a model given as bytes (TensorFlow.js weight shards, ONNX external data), by the
   * relative path the model names them with. A model given by path reads them from its folder.
   */
  readonly sideFiles?: Readonly<Record<string, Uint8Array>>;
}

/**
 * Reads and parses a model file with whichever installed parser recognises it; a directory is a
 * TensorFlow SavedModel (`saved_model.pb` + `variables/`; `parserOptions.signature` picks one).
 */
export async function parseModel(source: string | Uint8Array, options: ParseModelOptions = {}): Promise<Graph> {
  return (await parseModelReading(source, options)).graph;
}

/** A parse and the side files (external data) the parser read, relative to the model's folder. */
export interface ParsedModel {
  readonly graph: Graph;
  /** Name of the parser that read it. */
  readonly parser: string;
  readonly bytes: Uint8Array;
  readonly sideFiles: readonly SideFileRead[];
  /** The parser applied `buildOutNodes` (the compiler must not apply them again). */
  readonly outNodesApplied: boolean;
}

/** One read of a side file: the whole file, or `length` bytes at `offset`. */
export interface SideFileRead {
  readonly path: string;
  readonly bytes: Uint8Array;
  readonly offset?: number;
  readonly length?: number;
}

/** `parseModel`, also returning what it read, so the compile cache can key side files. */
export async function parseModelReading(source: string | Uint8Array, options: ParseModelOptions = {}): Promise<ParsedModel> {
  await discoverParsers();
  if (typeof source === 'string') source = await modelFileOf(source);
  const filePath = typeof source === 'string' ? source : options.fileName;
  let bytes: Uint8Array;
  if (typeof source === 'string') bytes = await readRegularFile(source, { code: 'TSGE-E3001' });
  else bytes = source;

  const parser = pickParser(bytes, filePath, options.format);
  const outNodesApplied = PARSERS_SELECTING_OUTPUTS.has(parser.name) && (options.buildOutNodes?.length ?? 0) > 0;
  if (outNodesApplied && options.outNodes !== undefined)
    throw TsgeError.of('TSGE-E6151', { option: 'outNodes', reason: 'give the outputs once: outNodes or the build out_nodes' });
  const outNodes = outNodesApplied ? options.buildOutNodes : options.outNodes;
  const weights = options.weightsPath !== undefined ? await readRegularFile(options.weightsPath, { code: 'TSGE-E3001' }) : undefined;
  // what the parser reads is recorded, so the compile cache can tell when a side file changed
  const sideFiles: SideFileRead[] = [];
  if (options.sideFiles !== undefined && typeof source === 'string') {
    throw TsgeError.of('TSGE-E6151', {
      option: 'sideFiles',
      reason: "applies to a model given as bytes; a path's side files are read from its folder",
    });
  }
  const inMemory = options.sideFiles !== undefined ? memoryReader(options.sideFiles) : undefined;
  const reader = typeof source === 'string' ? confinedReader(path.dirname(path.resolve(source))) : undefined;
  const input: ParseInput = {
    bytes,
    ...(filePath ? { path: filePath } : {}),
    ...(reader
      ? {
          readRelative: async (relativePath: string) => {
            const read = await reader.readRelative(relativePath);
            sideFiles.push({ path: relativePath, bytes: read });
            return read;
          },
          readRange: async (relativePath: string, offset: number, length: number) => {
            const read = await reader.readRange(relativePath, offset, length);
            sideFiles.push({ path: relativePath, bytes: read, offset, length });
            return read;
          },
        }
      : inMemory
        ? { readRelative: inMemory.readRelative, readRange: inMemory.readRange }
        : {}),
  };
  const result = await parser.parse(input, {
    ...(options.inputShapes ? { inputShapes: new Map(Object.entries(options.inputShapes)) } : {}),
    ...(outNodes ? { outputNodes: outNodes } : {}),
    extra: {
      ...options.parserOptions,
      ...(weights ? { weights, weightsPath: options.weightsPath } : {}),
      ...(options.ops ? { ops: options.ops } : {}),
    },
  });
  const errors = result.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0 || !result.graph) {
    throw TsgeError.fromDiagnostics(
      errors.length
        ? errors
        : [
            {
              code: 'TSGE-E3003',
              severity: 'error',
              message: 'the parser returned no graph',
              ...(filePath ? { location: { file: filePath } } : {}),
            },
          ],
    );
  }
  return { graph: result.graph, parser: parser.name, bytes, sideFiles, outNodesApplied };
}

function pickParser(bytes: Uint8Array, filePath: string | undefined, format: string | number | undefined): ParserV1 {
  const all = [...registered.values()];
  if (format !== undefined) {
    const name = typeof format === 'number' ? FRAMEWORK_NAMES[format] : format;
    const p = all.find((x) => x.name === name || (typeof format === 'number' && x.framework === format));
    if (!p) {
      throw TsgeError.of(
        'TSGE-E3005',
        { reason: `no installed parser for format ${String(format)}; installed: ${all.map((x) => x.name).join(', ') || 'none'}` },
        filePath ? { file: filePath } : undefined,
      );
    }
    return p;
  }
  let best: ParserV1 | undefined;
  let bestScore = 0;
  for (const p of all) {
    let score = 0;
    try {
      score = p.sniff(bytes, filePath);
    } catch {
      score = 0;
    }
    if (score > bestScore) {
      best = p;
      bestScore = score;
    }
  }
  if (!best) {
    throw TsgeError.of(
      'TSGE-E3005',
      { reason: `installed parsers: ${all.map((x) => x.name).join(', ') || 'none'}` },
      filePath ? { file: filePath } : undefined,
    );
  }
  return best;
}
