// The bench commands' flags: node:util parseArgs (the project's one argument parser) with every
// failure, its own and the value checks below, as TSGE-E4157 naming the command and the flag.
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { TsgeError } from '@tsge/metadef';

type Flags = NonNullable<ParseArgsConfig['options']>;
type Values<T extends Flags> = ReturnType<
  typeof parseArgs<{ args: string[]; options: T; strict: true; allowPositionals: false }>
>['values'];

/** The flags of `args` (default: this process's) for `command`, e.g. `bench:llm`; unknown or valueless flags throw E4157. */
export function parseFlags<const T extends Flags>(command: string, options: T, args: readonly string[] = process.argv.slice(2)): Values<T> {
  try {
    return parseArgs({ args: [...args], options, strict: true, allowPositionals: false }).values;
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS')) throw e;
    // node names the flag in quotes, followed by its value placeholder when one is missing
    const message = (e as Error).message;
    const option = /'(-[^' ]*)/.exec(message)?.[1] ?? '(positional)';
    throw TsgeError.of('TSGE-E4157', { command, option, reason: message.split('.')[0] ?? message });
  }
}

/** A whole number from `min` to `max` given to `option`. */
export function integerFlag(command: string, option: string, text: string | undefined, max: number, min = 1): number {
  const n = Number(text);
  if (text === undefined || text.trim() === '' || !Number.isSafeInteger(n) || n < min || n > max)
    throw TsgeError.of('TSGE-E4157', { command, option, reason: `expected an integer from ${min} to ${max}, got ${JSON.stringify(text)}` });
  return n;
}

/** A comma-separated list given to `option`, each item one of `allowed`. */
export function listFlag<T extends string>(command: string, option: string, text: string | undefined, allowed: readonly T[]): T[] {
  const items = (text ?? '').split(',').filter((s) => s !== '');
  for (const item of items)
    if (!allowed.includes(item as T))
      throw TsgeError.of('TSGE-E4157', { command, option, reason: `${item} is not one of ${allowed.join(', ')}` });
  return items as T[];
}
