// The campaigns `pnpm fuzz` runs. A new reader joins with one entry here (see ../../README.md).
import { createCampaignRegistry } from '../campaign.js';
import { airCampaign } from './air.js';
import { omFixedCampaign, omRawCampaign } from './om.js';
import { onnxParseCampaign } from './onnx-parse.js';
import { onnxRunCampaign } from './onnx-run.js';

export const registry = createCampaignRegistry([onnxParseCampaign, onnxRunCampaign, omRawCampaign, omFixedCampaign, airCampaign]);
