// @tsge/example-classify: classify photos with a TFLite classifier through atc → .om → executor.
export { classify, type ClassifyOptions, type Prediction } from './classify.js';
export { decodeImage, type RgbImage } from './image.js';
export { imageToInput, resizeBilinear, type Normalisation } from './preprocess.js';
