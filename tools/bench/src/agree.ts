// `pnpm bench:agree a.json b.json c.json [--tolerance 0.1]`: prints each ratio of consecutive bench
// runs, their mean and largest deviation, and exits 1 when one is outside ±tolerance (10%: the
// bench method's stability criterion).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type BenchJson, agreement, benchRatios } from './agreement.js';

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { tolerance: { type: 'string', default: '0.1' } },
  });
  const tolerance = Number(values.tolerance);
  if (positionals.length < 2 || !(tolerance > 0)) {
    console.error('usage: pnpm bench:agree <bench.json> <bench.json> [...] [--tolerance 0.1]');
    process.exitCode = 2;
    return;
  }
  const rows = agreement(positionals.map((f) => benchRatios(JSON.parse(readFileSync(f, 'utf8')) as BenchJson)));
  const header = `| ratio | ${positionals.map((_, i) => `run ${i + 1}`).join(' | ')} | mean | max deviation |`;
  console.log(header);
  console.log(`|---|${positionals.map(() => '---|').join('')}---|---|`);
  for (const r of rows)
    console.log(
      `| ${r.key} | ${r.values.map((v) => v.toFixed(2)).join(' | ')} | ${r.mean.toFixed(2)} | ${(r.deviation * 100).toFixed(1)}%${r.deviation > tolerance ? ' ✗' : ''} |`,
    );
  const off = rows.filter((r) => r.deviation > tolerance);
  console.log(
    off.length
      ? `\n${off.length} of ${rows.length} ratios outside ±${tolerance * 100}%: ${off.map((r) => r.key).join(', ')}`
      : `\nall ${rows.length} ratios within ±${tolerance * 100}% of their mean`,
  );
  if (off.length) process.exitCode = 1;
}

main();
