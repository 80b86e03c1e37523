import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { diagnostic, formatDiagnostic } from '@tsge/metadef';

export interface DeadlineIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/**
 * Runs atc with `argv` in a child process and kills it when `timeoutMs` passes (TSGE-E7070, exit 1).
 * A compile is synchronous work no timer on the same thread can interrupt; a process can be
 * stopped at any point, and its memory goes with it.
 */
export async function runWithDeadline(argv: readonly string[], timeoutMs: number, what: string, io: DeadlineIo): Promise<number> {
  const entry = new URL(import.meta.url.endsWith('.ts') ? './main.ts' : './main.js', import.meta.url);
  const child = spawn(process.execPath, [...execArgvFor(entry), fileURLToPath(entry), ...argv], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.setEncoding('utf8').on('data', (text: string) => io.stdout(text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => io.stderr(text));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  try {
    const code = await new Promise<number>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (status) => resolve(status ?? 2));
    });
    if (!timedOut) return code;
    io.stderr(`[atc] ${formatDiagnostic(diagnostic('TSGE-E7070', { tool: 'atc', what, timeoutMs }, { option: 'timeout' }))}\n`);
    return 1;
  } finally {
    clearTimeout(timer);
  }
}

/** From TypeScript sources (dev, tests) the child needs the source condition and tsx's loader. */
function execArgvFor(entry: URL): string[] {
  if (!entry.pathname.endsWith('.ts')) return [];
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href;
  return ['--conditions=@tsge/source', '--import', tsx];
}
