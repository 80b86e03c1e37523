import type { Value } from '@tsge/metadef';
import type { ConvertContext } from '../import/context.js';

/** Converts one TF node into canonical ops; returns one value per TF output. */
export type OpConverter = (ctx: ConvertContext) => Value[];

/** TF op type → converter. Each ops/*.ts file contributes a table; index.ts joins them. */
export type ConverterTable = Readonly<Record<string, OpConverter>>;
