import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Graph } from '@tsge/metadef';
import { graphToDot, graphToJson, serializeAir } from '@tsge/metadef';

/** Writes `<dir>/<seq>-<pass>.{air,json,dot}` after a pass when `dumpGraphAfter` names it or is 'all'. */
export function graphDumper(which: string | undefined, dir: string | undefined): ((graph: Graph, pass: string) => void) | undefined {
  if (!which) return undefined;
  const folder = dir ?? '.';
  let seq = 0;
  return (graph, pass) => {
    if (which !== 'all' && which !== pass) return;
    mkdirSync(folder, { recursive: true });
    const base = join(folder, `${String(++seq).padStart(2, '0')}-${pass.replace(/[^\w.-]/g, '_')}`);
    writeFileSync(`${base}.air`, serializeAir(graph, { modelName: graph.name }));
    writeFileSync(`${base}.json`, JSON.stringify(graphToJson(graph), null, 2));
    writeFileSync(`${base}.dot`, graphToDot(graph));
  };
}
