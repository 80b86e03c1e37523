import { TsgeError } from '@tsge/metadef';

/** What one case ended in. The last four fail a run. */
export type Outcome = 'ok' | 'coded' | 'engine' | 'hang' | 'crash' | 'oom';
export const OUTCOMES: readonly Outcome[] = ['ok', 'coded', 'engine', 'hang', 'crash', 'oom'];
export const FAILURES: ReadonlySet<Outcome> = new Set<Outcome>(['engine', 'hang', 'crash', 'oom']);

export interface CaseResult {
  readonly outcome: Outcome;
  /** The catalog code (coded errors, and engine errors a TsgeError wrapped). */
  readonly code?: string;
  /** The engine error's name (TypeError, RangeError, Error, ...). */
  readonly errorName?: string;
  readonly message?: string;
  readonly stack?: string;
}

/** Errors of the language and the engine: a bad input must never surface as one of these. */
const ENGINE_ERRORS = new Set(['TypeError', 'RangeError', 'ReferenceError', 'SyntaxError', 'EvalError', 'URIError', 'InternalError']);

/**
 * A TsgeError is a coded error unless it only wraps an engine error (an uncaught TypeError behind
 * a catch-all such as TSGE-E6007 is still a defect); anything else thrown is an engine error.
 */
export function classifyError(error: unknown): CaseResult {
  if (TsgeError.isInstance(error)) {
    const wrapped = engineCause(error.cause);
    if (wrapped) {
      return {
        outcome: 'engine',
        code: error.code,
        errorName: wrapped.name,
        message: `${error.message} (wraps ${wrapped.name}: ${wrapped.message})`,
        ...(wrapped.stack !== undefined ? { stack: wrapped.stack } : {}),
      };
    }
    if (error.code === 'TSGE-E1099') return { outcome: 'engine', code: error.code, errorName: 'TsgeError', message: error.message };
    return { outcome: 'coded', code: error.code, message: error.message };
  }
  if (error instanceof Error) {
    return {
      outcome: 'engine',
      errorName: error.name,
      message: error.message,
      ...(error.stack !== undefined ? { stack: error.stack } : {}),
    };
  }
  return { outcome: 'engine', errorName: typeof error, message: String(error) };
}

function engineCause(cause: unknown, depth = 0): Error | undefined {
  if (depth > 8 || !(cause instanceof Error)) return undefined;
  if (TsgeError.isInstance(cause)) return engineCause(cause.cause, depth + 1);
  if (ENGINE_ERRORS.has(cause.name) || cause.constructor?.name === 'RuntimeError') return cause;
  return engineCause(cause.cause, depth + 1);
}
