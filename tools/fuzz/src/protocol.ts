import type { CaseResult } from './classify.js';

/** Parent → child. */
export type ChildRequest = { readonly type: 'case'; readonly id: number; readonly campaign: string; readonly bytes: Uint8Array };

/** Child → parent. */
export type ChildReply =
  | { readonly type: 'ready' }
  | { readonly type: 'result'; readonly id: number; readonly result: CaseResult; readonly rss: number; readonly exiting?: boolean };
