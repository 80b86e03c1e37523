import { type Diagnostic, type ParseInput, type ParseOptions, type ParseResult, TsgeError, diagnostic } from '@tsge/metadef';
import type { BlobValuesFn, WeightSource } from './convert/context.js';
import { convertNet } from './convert/convert-net.js';
import type { BlobValues } from './net/blobs.js';
import { seededRandom } from './net/fillers.js';
import { attachWeights, buildNet, readCaffemodel, readPrototxt } from './net/net-model.js';
import { readWeights } from './net/read-weights.js';
import { writeCaffemodel } from './net/write-weights.js';
import { looksLikeBinaryNet } from './sniff.js';

/** Options of the Caffe parser, passed in `ParseOptions.extra`. */
export interface CaffeParseExtra {
  /** The `.caffemodel` bytes (atc `--weight`). */
  readonly weights?: Uint8Array;
  /** The `.caffemodel` path, read through `ParseInput.readRelative` (relative to the prototxt's folder). */
  readonly weightsPath?: string;
  /**
   * Without a caffemodel, draw every learned blob from the layer's filler (seeded, default seed 0)
   * so a prototxt alone compiles, for structure checks. Never done unless asked for.
   */
  readonly initializeWeights?: boolean | { readonly seed?: number };
}

function problem(error: unknown, file: string | undefined): Diagnostic[] {
  if (TsgeError.isInstance(error)) {
    if (error.diagnostics.length) return [...error.diagnostics];
    return [{ code: error.code, severity: 'error', message: error.message, ...(file ? { location: { file } } : {}) }];
  }
  const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return [diagnostic('TSGE-E3003', { reason }, file ? { file } : undefined)];
}

async function loadWeights(input: ParseInput, extra: CaffeParseExtra): Promise<Uint8Array | undefined> {
  if (extra.weights !== undefined) {
    if (!(extra.weights instanceof Uint8Array))
      throw TsgeError.of('TSGE-E7002', { option: 'weights', value: typeof extra.weights, reason: 'expected the caffemodel bytes' });
    return extra.weights;
  }
  if (extra.weightsPath === undefined) return undefined;
  if (!input.readRelative) {
    throw TsgeError.of(
      'TSGE-E3001',
      { reason: `cannot read weights ${extra.weightsPath}: the model was given as bytes; pass the weights as bytes` },
      { file: extra.weightsPath },
    );
  }
  try {
    return await input.readRelative(extra.weightsPath);
  } catch (error) {
    if (TsgeError.isInstance(error)) throw error;
    throw TsgeError.of(
      'TSGE-E3001',
      { reason: `cannot read weights ${extra.weightsPath}: ${error instanceof Error ? error.message : String(error)}` },
      { file: extra.weightsPath },
      error,
    );
  }
}

/** Shared by the parser and initializeCaffemodel: `record` receives filled blobs by layer. */
export async function parseCaffeWith(
  input: ParseInput,
  options: ParseOptions,
  record?: Map<string, BlobValues[]>,
  values?: BlobValuesFn,
): Promise<ParseResult> {
  const diagnostics: Diagnostic[] = [];
  const file = input.path;
  const extra = (options.extra ?? {}) as CaffeParseExtra;
  try {
    const binary = looksLikeBinaryNet(input.bytes);
    const structure = binary ? readCaffemodel(input.bytes, file) : readPrototxt(input.bytes, diagnostics, file);
    const net = buildNet(structure);
    const weightBytes = await loadWeights(input, extra);
    const hasWeights = binary || weightBytes !== undefined;
    if (weightBytes !== undefined) attachWeights(net, readWeights(weightBytes, extra.weightsPath));
    const init = extra.initializeWeights;
    let weights: WeightSource = { kind: 'model' };
    if (!hasWeights && init) {
      const seed = typeof init === 'object' ? (init.seed ?? 0) : 0;
      weights = { kind: 'fill', random: seededRandom(seed), ...(record ? { record } : {}), ...(values ? { values } : {}) };
    } else if (hasWeights && init) {
      diagnostics.push(
        diagnostic(
          'TSGE-E7002',
          { option: 'initializeWeights', value: 'set', reason: 'weights were given; they are used and nothing is initialised' },
          undefined,
          'warning',
        ),
      );
    }
    const { graph, missingWeights } = convertNet(
      net,
      { weights, inputShapes: options.inputShapes, outputNodes: options.outputNodes, file },
      diagnostics,
    );
    if (missingWeights.length > 0) {
      if (hasWeights)
        for (const layer of missingWeights)
          diagnostics.push(diagnostic('TSGE-E3211', { layer }, { node: layer, ...(file ? { file } : {}) }));
      else
        diagnostics.push(
          diagnostic(
            'TSGE-E3208',
            { layers: missingWeights.slice(0, 8).join(', ') + (missingWeights.length > 8 ? ', ...' : '') },
            file ? { file } : undefined,
          ),
        );
    }
    const failed = diagnostics.some((d) => d.severity === 'error');
    return { graph: failed ? undefined : graph, diagnostics };
  } catch (error) {
    return { graph: undefined, diagnostics: [...diagnostics, ...problem(error, file)] };
  }
}

/** Parses a Caffe prototxt (with weights from `extra`) or a caffemodel into a canonical graph. */
export function parseCaffe(input: ParseInput, options: ParseOptions = {}): Promise<ParseResult> {
  return parseCaffeWith(input, options);
}

export interface InitializeCaffemodelOptions {
  /** Seed of the fillers' generator (default 0). */
  readonly seed?: number;
  readonly inputShapes?: ParseOptions['inputShapes'];
  /** Values for some blobs instead of their filler's (shapes come from the network). */
  readonly values?: BlobValuesFn;
}

/**
 * Writes a `.caffemodel` for a prototxt with every learned blob initialised as Caffe would (the
 * layer's filler, seeded) or by `values`: weights to hand to other Caffe tools for the same network.
 */
export async function initializeCaffemodel(
  prototxt: Uint8Array,
  options: InitializeCaffemodelOptions = {},
): Promise<{ readonly caffemodel: Uint8Array | undefined; readonly diagnostics: readonly Diagnostic[] }> {
  const record = new Map<string, BlobValues[]>();
  const result = await parseCaffeWith(
    { bytes: prototxt },
    { ...(options.inputShapes ? { inputShapes: options.inputShapes } : {}), extra: { initializeWeights: { seed: options.seed ?? 0 } } },
    record,
    options.values,
  );
  if (!result.graph) return { caffemodel: undefined, diagnostics: result.diagnostics };
  const structure = readPrototxt(prototxt, [], undefined);
  const types = new Map(buildNet(structure).layers.map((l) => [l.name, l.type]));
  const layer = [...record].map(([name, blobs]) => ({ name, type: types.get(name) ?? '', blobs }));
  return { caffemodel: writeCaffemodel(structure.name ?? '', layer), diagnostics: result.diagnostics };
}
