// The PP-OCRv4 pipeline as a @tsge/dflow flow graph.
export { ocrGraph, ocrModels, type OcrGraphOptions } from './pipeline.js';
export { dbBoxes, cropForRecognition, ctcGreedy, type Box } from './functions.js';
export { readPage, collectPages, type PageText } from './read-page.js';
