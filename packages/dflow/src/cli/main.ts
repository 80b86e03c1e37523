#!/usr/bin/env node
// tsge-dflow: `agent` runs the nodes a deployment places on this host, reading and writing NATS JetStream.
import { parseArgs } from 'node:util';
import { TsgeError } from '@tsge/metadef';
import { runAgent } from '../nats/agent.js';

const USAGE = `usage: tsge-dflow agent --nats nats://HOST:PORT --host NAME [--allow-module SPECIFIER]...

  --nats          NATS server URL (JetStream enabled)
  --host          this host's name in deployment files
  --allow-module  only run flow models whose functions come from these modules (repeatable)
  --quiet         print nothing but errors`;

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== 'agent') {
    console.error(command === undefined || command === '--help' ? USAGE : `tsge-dflow: unknown command ${command}\n${USAGE}`);
    return command === '--help' ? 0 : 2;
  }
  let values: { nats?: string; host?: string; 'allow-module'?: string[]; quiet?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...rest],
      options: {
        nats: { type: 'string' },
        host: { type: 'string' },
        'allow-module': { type: 'string', multiple: true },
        quiet: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (e) {
    console.error(`tsge-dflow: ${TsgeError.of('TSGE-E7001', { option: e instanceof Error ? e.message : String(e) }).message}\n${USAGE}`);
    return 2;
  }
  for (const option of ['nats', 'host'] as const)
    if (!values[option]) {
      console.error(`tsge-dflow: ${TsgeError.of('TSGE-E7004', { option: `--${option}` }).message}\n${USAGE}`);
      return 2;
    }
  const controller = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => controller.abort());
  const log = values.quiet ? () => {} : (line: string) => console.log(`[${values.host}] ${line}`);
  await runAgent({
    servers: values.nats as string,
    host: values.host as string,
    ...(values['allow-module'] ? { allowModules: values['allow-module'] } : {}),
    signal: controller.signal,
    log,
  });
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    console.error(`tsge-dflow: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 1;
  },
);
