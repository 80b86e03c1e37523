import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  type Graph,
  type HostTensor,
  type RuntimeValue,
  type TensorDesc,
  TsgeError,
  createTensor,
  formatDiagnostic,
  isUnknownRank,
} from '@tsge/metadef';
import { type ValueProtoKind, decodeValueProto, parseOnnx } from '@tsge/parser-onnx';
import { DEFAULT_TOLERANCE, type Tolerance, compareValues } from './compare.js';
import type { Engine } from './engine.js';
import { type TestCase, numberedFiles } from './test-case.js';

export type TestStatus = 'passed' | 'failed' | 'skipped';

export interface TestResult {
  readonly name: string;
  readonly status: TestStatus;
  readonly reason: string;
  /** True when the failure was an uncaught exception, a crash or a timeout (not a diagnostic or a wrong value). */
  readonly error: boolean;
}

/** Reads side files of a model, refusing paths that leave its folder. */
function relativeReader(modelPath: string): (relativePath: string) => Promise<Uint8Array> {
  const folder = path.dirname(path.resolve(modelPath));
  return async (relativePath) => {
    const full = path.resolve(folder, relativePath);
    if (full !== folder && !full.startsWith(folder + path.sep)) throw new Error(`${relativePath} is outside the model folder`);
    return new Uint8Array(await readFile(full));
  };
}

function kindOf(desc: TensorDesc | undefined): ValueProtoKind {
  return desc?.valueKind === 'sequence' ? 'sequence' : desc?.valueKind === 'optional' ? 'optional' : 'tensor';
}

/** `light` inputs: arange(n)/n as float32, unknown dims taken as 1. */
function lightInput(desc: TensorDesc): HostTensor {
  const dims = isUnknownRank(desc.shape) ? [1] : desc.shape.map((d) => (typeof d === 'number' && d >= 0 ? d : 1));
  const n = dims.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = i / n;
  return createTensor('float32', dims, data);
}

function describeError(error: unknown): { reason: string; crash: boolean } {
  if (TsgeError.isInstance(error)) return { reason: error.message.split('\n')[0] as string, crash: false };
  if (error instanceof Error) return { reason: `${error.name}: ${error.message}`, crash: true };
  return { reason: String(error), crash: true };
}

/** Runs one test: parse, prepare with the engine, run each data set, compare. Never throws. */
export async function runTest(test: TestCase, engine: Engine, tolerance: Tolerance = DEFAULT_TOLERANCE): Promise<TestResult> {
  const result = (status: TestStatus, reason = '', error = false): TestResult => ({ name: test.name, status, reason, error });
  if (test.dataSets.length === 0) return result('skipped', 'no test data');
  let graph: Graph;
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(test.modelPath));
    const parsed = await parseOnnx({ bytes, path: test.modelPath, readRelative: relativeReader(test.modelPath) });
    const errors = parsed.diagnostics.filter((d) => d.severity === 'error');
    if (!parsed.graph || errors.length) {
      return result(
        'failed',
        `parse: ${errors.slice(0, 3).map(formatDiagnostic).join('; ') || 'no graph'}${errors.length > 3 ? ` (+${errors.length - 3} more)` : ''}`,
      );
    }
    graph = parsed.graph;
  } catch (error) {
    const { reason, crash } = describeError(error);
    return result('failed', `parse threw: ${reason}`, crash);
  }
  const inputNodes = graph.inputNodes();
  const inputNames = inputNodes.map((n) => n.opDesc.outputNames[0] ?? n.name);
  const outputDescs = graph.outputNode()?.opDesc.inputDescs ?? [];
  let model: Awaited<ReturnType<Engine['prepare']>>;
  try {
    model = await engine.prepare(graph, bytes, test.modelPath);
  } catch (error) {
    const { reason, crash } = describeError(error);
    return result('failed', `prepare: ${reason}`, crash);
  }
  try {
    const sets = test.layout === 'light' ? [test.dataSets] : test.dataSets.map((d) => [d]);
    for (const set of sets) {
      let inputs: (RuntimeValue | undefined)[];
      let expectedFiles: readonly string[];
      if (test.layout === 'light') {
        inputs = inputNodes.map((n) => lightInput(n.opDesc.outputDescs[0] as TensorDesc));
        expectedFiles = set;
      } else {
        const dir = set[0] as string;
        const inputFiles = numberedFiles(dir, 'input');
        inputs = [];
        for (let i = 0; i < inputFiles.length; i++) {
          inputs.push(
            decodeValueProto(new Uint8Array(await readFile(inputFiles[i] as string)), kindOf(inputNodes[i]?.opDesc.outputDescs[0])),
          );
        }
        expectedFiles = numberedFiles(dir, 'output');
      }
      const expected: RuntimeValue[] = [];
      for (let i = 0; i < expectedFiles.length; i++) {
        try {
          expected.push(decodeValueProto(new Uint8Array(await readFile(expectedFiles[i] as string)), kindOf(outputDescs[i])));
        } catch (error) {
          return result('skipped', `cannot read expected output ${i}: ${describeError(error).reason}`);
        }
      }
      let actual: (RuntimeValue | undefined)[];
      try {
        actual = await model.run(inputs, inputNames);
      } catch (error) {
        const { reason, crash } = describeError(error);
        return result('failed', `run: ${reason}`, crash);
      }
      for (let i = 0; i < expected.length; i++) {
        const why = compareValues(actual[i], expected[i], tolerance);
        if (why) return result('failed', `output ${i}: ${why}`);
      }
    }
    return result('passed');
  } catch (error) {
    const { reason, crash } = describeError(error);
    return result('failed', reason, crash);
  } finally {
    await model.release().catch(() => {});
  }
}
