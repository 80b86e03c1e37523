#!/usr/bin/env node
import { pathToFileURL } from 'node:url';
import { TsgeError } from '@tsge/metadef';
import { USAGE, parseRunArgs } from './cli-args.js';
import { formatReport, runModel } from './run.js';

/** The `tsge-run` command; returns the exit code. */
export async function main(
  argv: readonly string[],
  out: (s: string) => void = console.log,
  err: (s: string) => void = console.error,
): Promise<number> {
  let debug = false;
  try {
    const args = parseRunArgs(argv);
    if (args.help) {
      out(USAGE);
      return 0;
    }
    debug = process.env.TSGE_LOG === 'debug';
    const report = await runModel(args, args.json ? () => {} : err);
    if (args.json) out(JSON.stringify(report, null, 2));
    else for (const line of formatReport(report)) out(line);
    const bad = report.comparison?.some((c) => !c.shapeMatches || !(c.maxRelError <= 1e-4 || c.maxAbsError <= 1e-5));
    return bad ? 3 : 0;
  } catch (e) {
    if (TsgeError.isInstance(e)) {
      err(`tsge-run: ${e.message}`);
      if (debug && e.stack) err(e.stack);
      return 2;
    }
    err(`tsge-run: internal error: ${e instanceof Error ? (debug ? e.stack : e.message) : String(e)}`);
    return 1;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
