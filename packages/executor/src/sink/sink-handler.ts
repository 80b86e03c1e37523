/** The module every sink worker runs (sink-worker.ts, or its built .js). */
export const sinkHandlerUrl = (): URL =>
  new URL(import.meta.url.endsWith('.ts') ? './sink-worker.ts' : './sink-worker.js', import.meta.url);
