import type { FlowSession } from '@tsge/dflow';
import type { HostTensor } from '@tsge/metadef';

export interface PageText {
  readonly transactionId: number;
  /** The page's lines in reading order. */
  readonly lines: readonly string[];
}

/**
 * Collects the line messages of pages fed to an OCR session: each page's lines arrive as segments
 * of its transaction (possibly interleaved with other pages' lines), the last flagged segmentEnd.
 */
export async function collectPages(session: FlowSession, pages: number, timeoutMs: number): Promise<PageText[]> {
  const open = new Map<number, { lines: Map<number, string>; last: number | undefined }>();
  const done: PageText[] = [];
  const decoder = new TextDecoder();
  while (done.length < pages) {
    const [m] = await session.fetch([0], { timeoutMs });
    if (!m) continue;
    if (m.error) throw m.error;
    const id = m.header.transactionId;
    const page = open.get(id) ?? { lines: new Map<number, string>(), last: undefined };
    open.set(id, page);
    page.lines.set(m.header.segment, decoder.decode(m.value as Uint8Array));
    if (m.header.segmentEnd) page.last = m.header.segment;
    if (page.last !== undefined && page.lines.size === page.last + 1) {
      open.delete(id);
      done.push({ transactionId: id, lines: [...page.lines.entries()].sort((a, b) => a[0] - b[0]).map(([, t]) => t) });
    }
  }
  return done;
}

/** Feeds one page and returns its lines. */
export async function readPage(session: FlowSession, page: HostTensor, timeoutMs = 60_000): Promise<PageText> {
  const transactionId = await session.feed([page], { timeoutMs });
  const [text] = await collectPages(session, 1, timeoutMs);
  if (!text || text.transactionId !== transactionId) throw new Error('a page came back out of turn');
  return text;
}
