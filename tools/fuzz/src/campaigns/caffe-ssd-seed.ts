// A small SSD deploy prototxt (two PriorBox heads, Normalize, Permute/Flatten/Concat, softmax,
// DetectionOutput) for the Caffe campaign: the shared test data has no SSD net.
export const SSD_PROTOTXT = `name: "ssd_seed"
input: "data"
input_shape { dim: 1 dim: 3 dim: 16 dim: 16 }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1" convolution_param { num_output: 4 pad: 1 kernel_size: 3 stride: 2 } }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
layer { name: "conv1_norm" type: "Normalize" bottom: "conv1" top: "conv1_norm" norm_param { across_spatial: false scale_filler { type: "constant" value: 20 } channel_shared: false } }
layer { name: "conv2" type: "Convolution" bottom: "conv1" top: "conv2" convolution_param { num_output: 4 pad: 1 kernel_size: 3 stride: 2 } }
layer { name: "h1_loc" type: "Convolution" bottom: "conv1_norm" top: "h1_loc" convolution_param { num_output: 16 pad: 1 kernel_size: 3 } }
layer { name: "h1_loc_perm" type: "Permute" bottom: "h1_loc" top: "h1_loc_perm" permute_param { order: 0 order: 2 order: 3 order: 1 } }
layer { name: "h1_loc_flat" type: "Flatten" bottom: "h1_loc_perm" top: "h1_loc_flat" flatten_param { axis: 1 } }
layer { name: "h1_conf" type: "Convolution" bottom: "conv1_norm" top: "h1_conf" convolution_param { num_output: 12 pad: 1 kernel_size: 3 } }
layer { name: "h1_conf_perm" type: "Permute" bottom: "h1_conf" top: "h1_conf_perm" permute_param { order: 0 order: 2 order: 3 order: 1 } }
layer { name: "h1_conf_flat" type: "Flatten" bottom: "h1_conf_perm" top: "h1_conf_flat" flatten_param { axis: 1 } }
layer { name: "h1_pb" type: "PriorBox" bottom: "conv1_norm" bottom: "data" top: "h1_pb" prior_box_param { min_size: 4 max_size: 8 aspect_ratio: 2 flip: true clip: false variance: 0.1 variance: 0.1 variance: 0.2 variance: 0.2 step: 2 offset: 0.5 } }
layer { name: "h2_loc" type: "Convolution" bottom: "conv2" top: "h2_loc" convolution_param { num_output: 12 pad: 1 kernel_size: 3 } }
layer { name: "h2_loc_perm" type: "Permute" bottom: "h2_loc" top: "h2_loc_perm" permute_param { order: 0 order: 2 order: 3 order: 1 } }
layer { name: "h2_loc_flat" type: "Flatten" bottom: "h2_loc_perm" top: "h2_loc_flat" flatten_param { axis: 1 } }
layer { name: "h2_conf" type: "Convolution" bottom: "conv2" top: "h2_conf" convolution_param { num_output: 9 pad: 1 kernel_size: 3 } }
layer { name: "h2_conf_perm" type: "Permute" bottom: "h2_conf" top: "h2_conf_perm" permute_param { order: 0 order: 2 order: 3 order: 1 } }
layer { name: "h2_conf_flat" type: "Flatten" bottom: "h2_conf_perm" top: "h2_conf_flat" flatten_param { axis: 1 } }
layer { name: "h2_pb" type: "PriorBox" bottom: "conv2" bottom: "data" top: "h2_pb" prior_box_param { min_size: 8 aspect_ratio: 2 flip: true clip: true variance: 0.1 img_size: 16 } }
layer { name: "mbox_loc" type: "Concat" bottom: "h1_loc_flat" bottom: "h2_loc_flat" top: "mbox_loc" concat_param { axis: 1 } }
layer { name: "mbox_conf" type: "Concat" bottom: "h1_conf_flat" bottom: "h2_conf_flat" top: "mbox_conf" concat_param { axis: 1 } }
layer { name: "mbox_priorbox" type: "Concat" bottom: "h1_pb" bottom: "h2_pb" top: "mbox_priorbox" concat_param { axis: 2 } }
layer { name: "mbox_conf_reshape" type: "Reshape" bottom: "mbox_conf" top: "mbox_conf_reshape" reshape_param { shape { dim: 0 dim: -1 dim: 3 } } }
layer { name: "mbox_conf_softmax" type: "Softmax" bottom: "mbox_conf_reshape" top: "mbox_conf_softmax" softmax_param { axis: 2 } }
layer { name: "mbox_conf_flatten" type: "Flatten" bottom: "mbox_conf_softmax" top: "mbox_conf_flatten" flatten_param { axis: 1 } }
layer {
  name: "detection_out" type: "DetectionOutput"
  bottom: "mbox_loc" bottom: "mbox_conf_flatten" bottom: "mbox_priorbox" top: "detection_out"
  detection_output_param {
    num_classes: 3 share_location: true background_label_id: 0
    nms_param { nms_threshold: 0.45 top_k: 40 eta: 1 }
    code_type: CENTER_SIZE variance_encoded_in_target: false keep_top_k: 20 confidence_threshold: 0.1
  }
}
`;
