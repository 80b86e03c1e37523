// A fuzzing child process: imports the campaign registry once, then runs one case per message and
// answers with how it ended. The parent kills and replaces it on a hang, crash or memory blow-up.
import type { CampaignRegistry } from './campaign.js';
import { type CaseResult, classifyError } from './classify.js';
import type { ChildReply, ChildRequest } from './protocol.js';

const registryUrl = process.argv[2];
if (!registryUrl || !process.send) throw new Error('child.ts is started by the fuzzing pool (fork with IPC and a registry URL)');
const { registry } = (await import(registryUrl)) as { registry: CampaignRegistry };
const send = (reply: ChildReply): void => {
  process.send?.(reply);
};

let current: number | undefined;
// an error no case awaited (a rejected promise left behind, a throw in a callback) is a defect of
// the case that was running; the process state is then unknown, so the child ends after reporting
const escaped = (error: unknown): void => {
  const result = classifyError(error);
  const outcome: CaseResult = { ...result, outcome: 'engine', message: `escaped the case: ${result.message ?? ''}` };
  if (current === undefined) process.exit(70);
  // exit once the report is out (an exit right after send could lose it)
  process.send?.({ type: 'result', id: current, result: outcome, rss: process.memoryUsage.rss(), exiting: true } satisfies ChildReply, () =>
    process.exit(70),
  );
};
process.on('uncaughtException', escaped);
process.on('unhandledRejection', escaped);

process.on('message', (message: ChildRequest) => {
  if (message.type !== 'case') return;
  const campaign = registry.get(message.campaign);
  current = message.id;
  const done = (result: CaseResult): void => {
    current = undefined;
    send({ type: 'result', id: message.id, result, rss: process.memoryUsage.rss() });
  };
  if (!campaign) {
    done({ outcome: 'crash', message: `no campaign ${message.campaign} in ${registryUrl}` });
    return;
  }
  campaign.run(new Uint8Array(message.bytes)).then(
    () => done({ outcome: 'ok' }),
    (error: unknown) => done(classifyError(error)),
  );
});
send({ type: 'ready' });
