import { writeFile } from 'node:fs/promises';
import { dirname, extname, resolve } from 'node:path';
import type { Diagnostic, Graph, ParserV1 } from '@tsge/metadef';
import { TsgeError, diagnostic, formatDiagnostic, graphToJson } from '@tsge/metadef';
import {
  type BuildOptions,
  PARSERS_SELECTING_OUTPUTS,
  PRECISION_MODES,
  type PrecisionMode,
  compileModel,
  confinedReader,
  fileError,
  modelFileOf,
  omToJson,
  readOm,
  readRegularFile,
} from '@tsge/ge';
import { caffeParser } from '@tsge/parser-caffe';
import { mindsporeParser } from '@tsge/parser-mindspore';
import { onnxParser } from '@tsge/parser-onnx';
import { tensorflowParser, tfjsParser } from '@tsge/parser-tensorflow';
import { TFLITE_FRAMEWORK, tfliteParser } from '@tsge/parser-tflite';
import {
  OPTIONS,
  type OptionName,
  invalidOption,
  parseArgs,
  parseBoolean,
  parseDynamicDims,
  parseInputShapes,
  parseIntList,
  parseSwitches,
} from './args.js';
import { runWithDeadline } from './deadline.js';
import { formatOmSummary, formatSummary } from './summary.js';

export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

const LOG_LEVELS = ['debug', 'info', 'warning', 'error', 'null'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];
const FRAMEWORKS: Readonly<Record<string, string>> = {
  '0': 'Caffe',
  '1': 'MindSpore',
  '3': 'TensorFlow',
  '5': 'ONNX',
  [TFLITE_FRAMEWORK]: 'TFLite',
  tfjs: 'TensorFlow.js',
};
const PARSERS: readonly ParserV1[] = [onnxParser, tensorflowParser, tfjsParser, caffeParser, mindsporeParser, tfliteParser];

/** A problem that ends the command with these diagnostics and exit code 1. */
class Stop extends Error {
  constructor(readonly diagnostics: readonly Diagnostic[]) {
    super('stop');
  }
}
const stop = (...diagnostics: Diagnostic[]): never => {
  throw new Stop(diagnostics);
};

/** Runs atc with command-line arguments; returns the exit code (0 success, 1 user error, 2 internal error). */
export async function main(argv: readonly string[], io: CliIo = defaultIo()): Promise<number> {
  const { values, diagnostics } = parseArgs(argv);
  const level = (values.log ?? 'info') as LogLevel;
  const logLevel: LogLevel = LOG_LEVELS.includes(level) ? level : 'info';
  if (!LOG_LEVELS.includes(level)) diagnostics.push(invalidOption('log', String(values.log), `expected ${LOG_LEVELS.join(', ')}`));
  const at = (min: LogLevel) => LOG_LEVELS.indexOf(logLevel) <= LOG_LEVELS.indexOf(min);
  try {
    if (diagnostics.length) stop(...diagnostics);
    if (values.help !== undefined || argv.length === 0) {
      io.stdout(helpText());
      return 0;
    }
    const mode = values.mode ?? '0';
    if (values.timeout !== undefined) {
      const timeoutMs = Number(values.timeout);
      if (!/^\d+$/.test(values.timeout.trim()) || !(timeoutMs >= 1) || !Number.isSafeInteger(timeoutMs))
        stop(invalidOption('timeout', values.timeout, 'expected a positive integer (milliseconds)'));
      // the same command without --timeout, in a process that can be stopped mid-compile
      const rest = Object.entries(values).flatMap(([name, value]) => (name === 'timeout' ? [] : [`--${name}=${value}`]));
      const what = mode === '0' ? `compiling ${values.model ?? 'the model'}` : `--mode=${mode}`;
      return await runWithDeadline(rest, timeoutMs, what, io);
    }
    if (mode === '1') await toJson(values, io, at);
    else if (mode === '6') await printOm(values, io);
    else if (mode === '0') await compileCommand(values, io, at);
    else stop(invalidOption('mode', mode, 'expected 0, 1 or 6'));
    return 0;
  } catch (e) {
    if (e instanceof Stop || TsgeError.isInstance(e)) {
      const list =
        e instanceof Stop ? e.diagnostics : e.diagnostics.length ? e.diagnostics : [diagnostic('TSGE-E1099', { message: e.message })];
      for (const d of list) if (d.severity === 'error' || at('warning')) io.stderr(`[atc] ${formatDiagnostic(d)}\n`);
      if (at('debug') && e instanceof Error && e.stack) io.stderr(`${e.stack}\n`);
      return 1;
    }
    io.stderr(`[atc] TSGE-E1099 error: internal error: ${e instanceof Error ? e.message : String(e)}\n`);
    if (at('debug') && e instanceof Error && e.stack) io.stderr(`${e.stack}\n`);
    return 2;
  }
}

function defaultIo(): CliIo {
  return { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) };
}

function helpText(): string {
  const lines = Object.entries(OPTIONS).map(([name, text]) => `  --${name.padEnd(22)} ${text}`);
  return `atc: compile a model into a tsge .om file\n\nusage: atc --model=model.onnx --framework=5 --output=model [options]\n       atc --mode=1 --om=model.om --json=model.json\n       atc --mode=6 --om=model.om\n\n${lines.join('\n')}\n`;
}

function required(values: Partial<Record<OptionName, string>>, name: OptionName): string {
  const v = values[name];
  if (v === undefined || v === '') stop(diagnostic('TSGE-E7004', { option: `--${name}` }, { option: name }));
  return v as string;
}

/** A regular file (a directory, FIFO or device is a coded user error naming the path). */
function readInput(path: string): Promise<Uint8Array> {
  return readRegularFile(path);
}

async function writeOutput(path: string, data: Uint8Array | string, option: OptionName): Promise<void> {
  try {
    await writeFile(path, data);
  } catch (error) {
    throw fileError('write', path, error, { option });
  }
}

async function loadGraph(
  values: Partial<Record<OptionName, string>>,
  at: (l: LogLevel) => boolean,
  io: CliIo,
  build?: BuildOptions,
): Promise<{ graph: Graph; selectedOutputs: boolean }> {
  // a directory is a TensorFlow SavedModel: its saved_model.pb, with variables/ beside it
  const path = await modelFileOf(required(values, 'model'));
  const bytes = await readInput(path);
  const framework = values.framework;
  if (framework !== undefined && !(framework in FRAMEWORKS))
    stop(invalidOption('framework', framework, `expected 0, 1, 3, 5, ${TFLITE_FRAMEWORK} (TFLite) or tfjs`));
  const parser =
    framework !== undefined
      ? pickParser(
          bytes,
          path,
          PARSERS.filter((p) => p.name === framework || String(p.framework) === framework),
          true,
        )
      : pickParser(bytes, path, PARSERS, false);
  if (!parser) {
    const reason =
      framework !== undefined
        ? `framework ${framework} (${FRAMEWORKS[framework]}) has no parser in this build`
        : `no parser recognises it (${PARSERS.map((p) => p.name).join(', ')})`;
    return stop(diagnostic('TSGE-E3005', { reason }, { file: path }));
  }
  // side files (external data) by their real path inside the model's folder, only the ranges needed
  const { readRelative, readRange } = confinedReader(resolve(dirname(path)));
  if (at('info')) io.stderr(`[atc] parse ${path} (${parser.name})\n`);
  const shapeProblems: Diagnostic[] = [];
  const shapes = values.input_shape !== undefined ? parseInputShapes(values.input_shape, shapeProblems) : undefined;
  const selectedOutputs = PARSERS_SELECTING_OUTPUTS.has(parser.name) && (build?.outNodes?.length ?? 0) > 0;
  const result = await parser.parse(
    { bytes, path, readRelative, readRange },
    {
      extra: await parserExtra(values, parser),
      ...(shapes ? { inputShapes: new Map(Object.entries(shapes)) } : {}),
      ...(selectedOutputs ? { outputNodes: build?.outNodes } : {}),
    },
  );
  for (const d of result.diagnostics) if (d.severity !== 'error' && at('warning')) io.stderr(`[atc] ${formatDiagnostic(d)}\n`);
  const errors = result.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length || !result.graph)
    stop(...(errors.length ? errors : [diagnostic('TSGE-E3003', { reason: 'no graph' }, { file: path })]));
  return { graph: result.graph as Graph, selectedOutputs };
}

/** `--weight` and `--init_weights`, which only the Caffe parser takes. */
async function parserExtra(values: Partial<Record<OptionName, string>>, parser: ParserV1): Promise<Record<string, unknown>> {
  const extra: Record<string, unknown> = {};
  for (const option of ['weight', 'init_weights'] as const) {
    if (values[option] !== undefined && parser.name !== 'caffe') {
      stop(invalidOption(option, String(values[option]), `only Caffe models take --${option}; this model is ${parser.name}`));
    }
  }
  if (values.signature !== undefined) {
    if (parser.name !== 'tensorflow')
      stop(invalidOption('signature', values.signature, `only TensorFlow SavedModels take --signature; this model is ${parser.name}`));
    extra.signature = values.signature;
  }
  if (values.weight !== undefined) {
    extra.weights = await readInput(values.weight);
    extra.weightsPath = values.weight;
  }
  if (values.init_weights !== undefined) {
    if (values.weight !== undefined) stop(invalidOption('init_weights', values.init_weights, 'cannot be combined with --weight'));
    const seed = Number(values.init_weights);
    if (!Number.isSafeInteger(seed) || seed < 0)
      stop(invalidOption('init_weights', values.init_weights, 'expected a non-negative integer seed'));
    extra.initializeWeights = { seed };
  }
  return extra;
}

/**
 * The parser among `parsers` that sniffs the bytes best (the extension decides between equals).
 * With a framework named on the command line, its first parser reads bytes that no parser claims
 * (and reports why they are not its format).
 */
function pickParser(bytes: Uint8Array, path: string, parsers: readonly ParserV1[], named: boolean): ParserV1 | undefined {
  if (parsers.length === 1) return parsers[0];
  const ext = extname(path).toLowerCase();
  const byExtension = parsers.filter((p) => p.extensions.includes(ext));
  if (byExtension.length === 1) return byExtension[0];
  let best: ParserV1 | undefined;
  let score = 0;
  for (const p of byExtension.length ? byExtension : parsers) {
    const s = p.sniff(bytes, path);
    if (s > score) {
      score = s;
      best = p;
    }
  }
  return best ?? (named ? parsers[0] : undefined);
}

function compileOptions(values: Partial<Record<OptionName, string>>): BuildOptions {
  const problems: Diagnostic[] = [];
  const options: BuildOptions = {};
  const soc = values.soc_version ?? 'wasm-simd';
  if (soc !== 'wasm-simd' && soc !== 'js') problems.push(invalidOption('soc_version', soc, 'expected wasm-simd or js'));
  else options.target = soc;
  if (values.input_shape !== undefined) {
    const shapes = parseInputShapes(values.input_shape, problems);
    if (shapes) options.inputShapes = shapes;
  }
  if (values.input_format !== undefined && !['NCHW', 'NHWC', 'ND', 'NCDHW', 'NDHWC'].includes(values.input_format))
    problems.push(invalidOption('input_format', values.input_format, 'expected NCHW, NHWC, ND, NCDHW or NDHWC'));
  if (values.dynamic_batch_size !== undefined) {
    const sizes = parseIntList('dynamic_batch_size', values.dynamic_batch_size, problems);
    if (sizes) options.dynamicBatchSizes = sizes;
  }
  if (values.dynamic_dims !== undefined) {
    const dims = parseDynamicDims(values.dynamic_dims, problems);
    if (dims) options.dynamicDims = dims;
  }
  if (options.dynamicBatchSizes && options.dynamicDims)
    problems.push(invalidOption('dynamic_dims', String(values.dynamic_dims), 'cannot be combined with --dynamic_batch_size'));
  if (values.out_nodes !== undefined)
    options.outNodes = values.out_nodes
      .split(';')
      .map((s) => s.trim())
      .filter(Boolean);
  if (values.precision_mode !== undefined) {
    const p = values.precision_mode as PrecisionMode;
    if (PRECISION_MODES.includes(p)) options.precisionMode = p;
    else problems.push(invalidOption('precision_mode', p, `expected one of ${PRECISION_MODES.join(', ')}`));
  }
  if (values.oo_level !== undefined) {
    const m = /^O?([0-3])$/i.exec(values.oo_level);
    if (m) options.optLevel = Number(m[1]) as 0 | 1 | 2 | 3;
    else problems.push(invalidOption('oo_level', values.oo_level, 'expected O0, O1, O2 or O3'));
  }
  if (values.optimization_switch !== undefined) {
    const switches = parseSwitches(values.optimization_switch, problems);
    if (switches) options.optimizationSwitch = switches;
  }
  if (values.disable_reuse_memory !== undefined)
    options.disableReuseMemory = parseBoolean('disable_reuse_memory', values.disable_reuse_memory, problems) ?? false;
  if (values.enable_single_stream !== undefined)
    options.enableSingleStream = parseBoolean('enable_single_stream', values.enable_single_stream, problems) ?? false;
  if (values.stream_limit !== undefined) {
    const n = parseIntList('stream_limit', values.stream_limit, problems);
    if (n?.length === 1) options.streamLimit = n[0] as number;
  }
  if (values.dump_graph_after !== undefined) {
    options.dumpGraphAfter = values.dump_graph_after;
    options.dumpDir = values.dump_dir ?? 'dump';
  }
  if (problems.length) stop(...problems);
  return options;
}

async function compileCommand(values: Partial<Record<OptionName, string>>, io: CliIo, at: (l: LogLevel) => boolean): Promise<void> {
  const options = compileOptions(values);
  let output = required(values, 'output');
  if (!output.endsWith('.om')) output += '.om';
  const { graph, selectedOutputs } = await loadGraph(values, at, io, options);
  if (selectedOutputs) delete options.outNodes;
  const started = performance.now();
  // through @tsge/ge, which holds the default op and kernel registries
  const result = await compileModel(graph, {
    ...options,
    modelName:
      values.model
        ?.replace(/[\\/]+$/, '')
        .replace(/^.*[\\/]/, '')
        .replace(/\.[^.]*$/, '') ?? graph.name,
    onProgress: (e) => {
      if (!at('info')) return;
      if (e.stage.startsWith('pass ')) {
        if (at('debug')) io.stderr(`[atc]   ${e.stage} (#${e.done})\n`);
      } else if (e.stage === 'constant-folding') io.stderr(`[atc]   constant folding: ${e.done}/${e.total} nodes\n`);
      else if (e.stage !== 'done') io.stderr(`[atc] ${e.stage} (${e.done + 1}/${e.total})\n`);
    },
  });
  for (const d of result.diagnostics) if (at('warning')) io.stderr(`[atc] ${formatDiagnostic(d)}\n`);
  await writeOutput(output, result.om, 'output');
  if (at('info')) io.stderr(formatSummary(result.summary, output, performance.now() - started));
}

async function toJson(values: Partial<Record<OptionName, string>>, io: CliIo, at: (l: LogLevel) => boolean): Promise<void> {
  let json: object;
  if (values.om !== undefined) {
    const bytes = await readInput(values.om);
    const { model, diagnostics } = readOm(bytes, { fileName: values.om });
    if (!model) return stop(...diagnostics);
    json = omToJson(model);
  } else if (values.model !== undefined) json = graphToJson((await loadGraph(values, at, io)).graph);
  else return stop(diagnostic('TSGE-E7004', { option: '--om or --model' }, { option: 'om' }));
  const text = `${JSON.stringify(json, null, 2)}\n`;
  if (values.json !== undefined) await writeOutput(values.json, text, 'json');
  else io.stdout(text);
}

async function printOm(values: Partial<Record<OptionName, string>>, io: CliIo): Promise<void> {
  const path = required(values, 'om');
  const { model, diagnostics } = readOm(await readInput(path), { fileName: path });
  if (!model) return stop(...diagnostics);
  io.stdout(formatOmSummary(model, path));
}
