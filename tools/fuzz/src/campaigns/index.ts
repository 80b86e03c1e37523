// The campaigns `pnpm fuzz` runs. A new reader joins with one entry here (see ../../README.md).
import { createCampaignRegistry } from '../campaign.js';
import { airCampaign } from './air.js';
import { caffeCampaign } from './caffe.js';
import { mindirCampaign, mindsporeAirCampaign } from './mindspore.js';
import { omFixedCampaign, omRawCampaign } from './om.js';
import { onnxParseCampaign } from './onnx-parse.js';
import { onnxRunCampaign } from './onnx-run.js';
import { savedModelCampaign } from './saved-model.js';
import { tensorflowPbCampaign, tensorflowPbtxtCampaign, tensorflowRunCampaign } from './tensorflow.js';
import { tfjsCampaign } from './tfjs.js';
import { tfliteCampaign, tfliteRunCampaign } from './tflite.js';

export const registry = createCampaignRegistry([
  onnxParseCampaign,
  onnxRunCampaign,
  omRawCampaign,
  omFixedCampaign,
  airCampaign,
  tensorflowPbCampaign,
  tensorflowPbtxtCampaign,
  tensorflowRunCampaign,
  savedModelCampaign,
  tfjsCampaign,
  caffeCampaign,
  mindirCampaign,
  mindsporeAirCampaign,
  tfliteCampaign,
  tfliteRunCampaign,
]);
