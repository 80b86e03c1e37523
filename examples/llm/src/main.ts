// pnpm llm <model dir> --prompt "..." [--max-new-tokens 128] [--temperature 0] [--top-k 0] [--top-p 1] [--seed 0] [--raw] [--int4] [--threads N]
// Streams the generated text to stdout; timings to stderr.
import { parseArgs } from 'node:util';
import { generate } from './generate.js';

const usage =
  'usage: pnpm llm <model dir> --prompt "..." [--max-new-tokens 128] [--temperature 0] [--top-k 0] [--top-p 1] [--seed 0] [--raw] [--int4] [--threads N]\n';
let parsed: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    allowPositionals: true,
    options: {
      prompt: { type: 'string' },
      'max-new-tokens': { type: 'string', default: '128' },
      temperature: { type: 'string', default: '0' },
      'top-k': { type: 'string', default: '0' },
      'top-p': { type: 'string', default: '1' },
      seed: { type: 'string', default: '0' },
      threads: { type: 'string' },
      raw: { type: 'boolean', default: false },
      int4: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
try {
  parsed = parse();
} catch (error) {
  process.stderr.write(`llm: ${error instanceof Error ? error.message : String(error)}\n${usage}`);
  process.exit(1);
}
const { values, positionals } = parsed;
const fail = (message: string): never => {
  process.stderr.write(`llm: ${message}\n${usage}`);
  process.exit(1);
};
const integer = (name: string, text: string, min: number): number => {
  const v = Number(text);
  if (!Number.isSafeInteger(v) || v < min) fail(`--${name} must be an integer ≥ ${min}, got ${text}`);
  return v;
};
const real = (name: string, text: string, min: number, max: number): number => {
  const v = Number(text);
  if (!(Number.isFinite(v) && v >= min && v <= max)) fail(`--${name} must be a number in [${min}, ${max}], got ${text}`);
  return v;
};
if (values.help) {
  process.stdout.write(usage);
  process.exit(0);
}
const dir = positionals[0];
if (positionals.length !== 1 || dir === undefined || values.prompt === undefined) fail('give one model folder and --prompt');
const topP = real('top-p', values['top-p'], 0, 1);
if (topP === 0) fail('--top-p must be above 0');
try {
  const stats = await generate(
    dir as string,
    values.prompt as string,
    {
      maxNewTokens: integer('max-new-tokens', values['max-new-tokens'], 1),
      temperature: real('temperature', values.temperature, 0, 100),
      topK: integer('top-k', values['top-k'], 0),
      topP,
      seed: integer('seed', values.seed, 0),
      chat: !values.raw,
      int4: values.int4,
      ...(values.threads !== undefined ? { threads: integer('threads', values.threads, 1) } : {}),
    },
    (text) => process.stdout.write(text),
  );
  process.stdout.write('\n');
  process.stderr.write(
    `${stats.promptTokens} prompt tokens, ${stats.newTokens} new; build+compile+load ${(stats.compileMs / 1000).toFixed(1)} s, ` +
      `prefill ${stats.prefillMs.toFixed(0)} ms, decode ${stats.tokensPerSecond.toFixed(2)} tokens/s\n`,
  );
} catch (error) {
  process.stderr.write(`llm: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
