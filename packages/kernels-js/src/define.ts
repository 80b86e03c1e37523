import { type KernelContextV1, type KernelV1, ONNX_DOMAIN } from '@tsge/metadef';

export interface KernelSpec {
  readonly opType: string;
  readonly domain?: string;
  readonly name?: string;
  readonly dtypes?: KernelV1['dtypes'];
  readonly inPlace?: KernelV1['inPlace'];
  readonly parallel?: boolean;
  readonly plan?: KernelV1['plan'];
  readonly compute: (ctx: KernelContextV1) => void;
}

/** Builds a reference kernel (implementation name 'reference' unless given). */
export function defineKernel(spec: KernelSpec): KernelV1 {
  return {
    specVersion: 'v1',
    opType: spec.opType,
    domain: spec.domain ?? ONNX_DOMAIN,
    name: spec.name ?? 'reference',
    ...(spec.dtypes ? { dtypes: spec.dtypes } : {}),
    ...(spec.inPlace ? { inPlace: spec.inPlace } : {}),
    ...(spec.parallel !== undefined ? { parallel: spec.parallel } : {}),
    ...(spec.plan ? { plan: spec.plan } : {}),
    compute: spec.compute,
  };
}
