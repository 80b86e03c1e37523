import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { compileModel, defaultRegistries, fileError, loadModel, parseModel, readRegularFile } from '@tsge/ge';
import type { HostTensor, RuntimeValue } from '@tsge/metadef';
import { TsgeError, isHostTensor, shapeToString } from '@tsge/metadef';
import type { RunArgs } from './cli-args.js';
import { type OutputError, compareTensors, runOnnxRuntime } from './compare.js';
import { decodeNpy, encodeNpy } from './npy.js';
import { concreteDims, createRandom, randomTensor } from './random-inputs.js';
import { type LatencyStats, latencyStats } from './stats.js';

export interface RunReport {
  readonly model: string;
  readonly compiledInProcess: boolean;
  readonly compileMs?: number;
  readonly loadMs: number;
  readonly threads?: number;
  readonly inputs: { name: string; dtype: string; dims: number[] }[];
  readonly outputs: { name: string; dtype: string; dims: number[]; min?: number; max?: number; mean?: number }[];
  readonly latency: LatencyStats;
  readonly comparison?: OutputError[];
}

/** Runs a model as `tsge-run` does and returns the report (printing is the caller's). */
export async function runModel(args: RunArgs, log: (line: string) => void = () => {}): Promise<RunReport> {
  const isOm = args.model.endsWith('.om');
  let om: Uint8Array;
  let compileMs: number | undefined;
  if (isOm) {
    om = await readBytes(args.model);
  } else {
    log(`compiling ${args.model} ...`);
    const t0 = performance.now();
    const graph = await parseModel(args.model, { inputShapes: Object.fromEntries(args.inputShapes), ops: defaultRegistries().ops });
    om = (
      await compileModel(graph, { inputShapes: Object.fromEntries(args.inputShapes), ...(args.device === 'js' ? { target: 'js' } : {}) })
    ).om;
    compileMs = performance.now() - t0;
  }
  const t1 = performance.now();
  const executor = await loadModel(om, {
    ...(args.threads !== undefined ? { threads: args.threads } : {}),
    ...(args.mode ? { mode: args.mode } : {}),
    ...(args.device !== undefined ? { device: args.device } : {}),
    ...(args.profile ? { profile: true } : {}),
    ...(args.allowModelWasm ? { allowModelWasm: true } : {}),
  });
  const runOptions = args.timeoutMs !== undefined ? { timeoutMs: args.timeoutMs } : {};
  const loadMs = performance.now() - t1;
  try {
    const feeds: Record<string, HostTensor> = {};
    const random = createRandom(args.seed);
    for (const meta of executor.inputMetadata) {
      const file = args.inputs.get(meta.name);
      if (file) feeds[meta.name] = decodeNpy(await readBytes(file), file);
      else feeds[meta.name] = randomTensor(meta.dtype, concreteDims(meta.name, meta.shape, args.inputShapes.get(meta.name)), random);
    }
    for (const name of args.inputs.keys()) {
      if (!executor.inputMetadata.some((m) => m.name === name)) {
        throw TsgeError.of('TSGE-E6002', { input: name, expected: executor.inputMetadata.map((m) => m.name).join(', ') });
      }
    }
    for (let i = 0; i < args.warmup; i++) await executor.run(feeds, runOptions);
    const samples: number[] = [];
    let outputs: Record<string, RuntimeValue> = {};
    for (let i = 0; i < args.loop; i++) {
      const t = performance.now();
      outputs = await executor.run(feeds, runOptions);
      samples.push(performance.now() - t);
    }
    if (args.outputDir) {
      const dir = args.outputDir;
      await mkdir(dir, { recursive: true }).catch((error: unknown) => {
        throw fileError('create directory', dir, error, { option: '--output-dir' });
      });
      for (const [name, value] of Object.entries(outputs)) {
        if (isHostTensor(value) && !Array.isArray(value.data))
          await writeOutput(path.join(dir, `${safeFileName(name)}.npy`), encodeNpy(value), '--output-dir');
      }
    }
    if (args.profile) await writeOutput(args.profile, JSON.stringify(executor.profile()), '--profile');
    let comparison: OutputError[] | undefined;
    if (args.compare) {
      const reference = args.reference ?? (isOm ? undefined : args.model);
      if (!reference) throw TsgeError.of('TSGE-E7004', { option: '--reference (the .onnx model to compare an .om with)' });
      const expected = await runOnnxRuntime(reference, feeds, args.threads ?? 1);
      comparison = [];
      for (const [name, exp] of Object.entries(expected)) {
        const got = outputs[name];
        if (!isHostTensor(got))
          comparison.push({ name, maxAbsError: Number.POSITIVE_INFINITY, maxRelError: Number.POSITIVE_INFINITY, shapeMatches: false });
        else comparison.push(compareTensors(name, got, exp));
      }
    }
    return {
      model: args.model,
      compiledInProcess: !isOm,
      ...(compileMs !== undefined ? { compileMs } : {}),
      loadMs,
      ...(args.threads !== undefined ? { threads: args.threads } : {}),
      inputs: Object.entries(feeds).map(([name, t]) => ({ name, dtype: t.type, dims: [...t.dims] })),
      outputs: Object.entries(outputs).map(([name, v]) => summarize(name, v)),
      latency: latencyStats(samples),
      ...(comparison ? { comparison } : {}),
    };
  } finally {
    await executor.release();
  }
}

/** A regular file: missing is TSGE-E7003, a directory, FIFO or device TSGE-E7050, with the path. */
function readBytes(file: string): Promise<Uint8Array> {
  return readRegularFile(file);
}

async function writeOutput(file: string, data: Uint8Array | string, option: string): Promise<void> {
  try {
    await writeFile(file, data);
  } catch (error) {
    throw fileError('write', file, error, { option });
  }
}

function safeFileName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}

function summarize(name: string, value: RuntimeValue): RunReport['outputs'][number] {
  if (!isHostTensor(value)) return { name, dtype: value.kind, dims: [] };
  const base = { name, dtype: value.type, dims: [...value.dims] };
  if (Array.isArray(value.data) || value.data instanceof BigInt64Array || value.data instanceof BigUint64Array) return base;
  if (value.type === 'float16' || value.type === 'bfloat16') return base;
  const data = value.data;
  if (data.length === 0) return base;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let sum = 0;
  for (let i = 0; i < data.length; i++) {
    const x = data[i] as number;
    if (x < min) min = x;
    if (x > max) max = x;
    sum += x;
  }
  return { ...base, min, max, mean: sum / data.length };
}

/** Human-readable lines of a report. */
export function formatReport(report: RunReport): string[] {
  const f = (x: number): string => x.toFixed(3);
  const lines = [
    `model: ${report.model}${report.compiledInProcess ? ` (compiled in process in ${f(report.compileMs ?? 0)} ms)` : ''}`,
    `load: ${f(report.loadMs)} ms`,
  ];
  for (const i of report.inputs) lines.push(`input  ${i.name}: ${i.dtype}${shapeToString(i.dims)}`);
  for (const o of report.outputs) {
    const stats = o.mean !== undefined ? `  min ${o.min?.toPrecision(5)} max ${o.max?.toPrecision(5)} mean ${o.mean.toPrecision(5)}` : '';
    lines.push(`output ${o.name}: ${o.dtype}${shapeToString(o.dims)}${stats}`);
  }
  const l = report.latency;
  lines.push(`latency over ${l.runs} run(s): min ${f(l.minMs)} ms, median ${f(l.medianMs)} ms, p90 ${f(l.p90Ms)} ms, max ${f(l.maxMs)} ms`);
  for (const c of report.comparison ?? []) {
    lines.push(
      `vs onnxruntime ${c.name}: ${c.shapeMatches ? `max abs error ${c.maxAbsError.toExponential(3)}, max rel error ${c.maxRelError.toExponential(3)}` : 'SHAPE OR TYPE MISMATCH'}`,
    );
  }
  return lines;
}
