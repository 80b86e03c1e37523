// Measures once (not a test): latency of mobilenet_v2_1.0_224_quant on tsge (the quantized graph),
// on LiteRT's wasm CPU path (XNNPACK, single-threaded build), and on tsge with the same model
// imported as float (parser option `dequantize`). Run from the repository root:
//   node --conditions=@tsge/source --import tsx packages/integration-tests/src/tflite/latency.ts [runs]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildModel, loadModel } from '@tsge/ge';
import type { HostTensor } from '@tsge/metadef';
import { tfliteParser } from '@tsge/parser-tflite';
import { compileLiteRt } from './litert.fixture.js';
import { seededInput, topK } from './tflite.fixture.js';

const file = path.resolve(process.cwd(), '../shared/testdata/models/tflite/coral/mobilenet_v2_1.0_224_quant.tflite');
const runs = Number(process.argv[2] ?? 10);
const threads = Number(process.argv[3] ?? 1);
const bytes = new Uint8Array(readFileSync(file));

async function tsge(dequantize: boolean) {
  const { graph, diagnostics } = await tfliteParser.parse({ bytes, path: file }, { extra: { dequantize } });
  if (!graph) throw new Error(diagnostics.map((d) => d.message).join('\n'));
  const model = await loadModel(await buildModel(graph), { threads });
  const meta = model.inputMetadata[0];
  if (!meta) throw new Error('no input');
  const quantized = seededInput('uint8', [1, 224, 224, 3], 7);
  const input: HostTensor = dequantize
    ? { type: 'float32', dims: [1, 224, 224, 3], data: Float32Array.from(quantized.data as Uint8Array, (q) => (q - 128) / 128) }
    : quantized;
  return { run: async () => Object.values(await model.run({ [meta.name]: input }))[0] as HostTensor, release: () => model.release() };
}

async function median(run: () => Promise<unknown>): Promise<number> {
  await run();
  await run();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    await new Promise((r) => setTimeout(r, 20));
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}

const quant = await tsge(false);
const float = await tsge(true);
const litert = await compileLiteRt(file);
const input = seededInput('uint8', [1, 224, 224, 3], 7);
const tQuant = await median(quant.run);
const tFloat = await median(float.run);
const tLite = await median(() => litert.run([input]));
const a = topK(Array.from((await quant.run()).data as Uint8Array), 5);
const b = topK(Array.from((await float.run()).data as Float32Array), 5);
const c = topK(Array.from(((await litert.run([input]))[0] as HostTensor).data as Uint8Array), 5);
console.log(`mobilenet_v2_1.0_224_quant, median of ${runs} runs, tsge threads ${threads}, LiteRT wasm 1 thread (Node ${process.version})`);
console.log(`tsge quantized   ${tQuant.toFixed(1)} ms   top-5 ${a}`);
console.log(`tsge dequantized ${tFloat.toFixed(1)} ms   top-5 ${b}`);
console.log(`LiteRT wasm      ${tLite.toFixed(1)} ms   top-5 ${c}`);
console.log(
  `tsge quantized / LiteRT = ${(tQuant / tLite).toFixed(2)}; tsge quantized / tsge dequantized = ${(tQuant / tFloat).toFixed(2)}`,
);
litert.delete();
await quant.release();
await float.release();
