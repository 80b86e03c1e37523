/** The domain of the classic machine-learning ops. */
export const ML_DOMAIN = 'ai.onnx.ml';
