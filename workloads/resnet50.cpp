// torchvision's resnet50 (v1.5: the stride sits on the 3x3 convolution), 224x224 input.
#include <string>

#include "workloads/layer_list.hpp"

namespace collbench {
namespace {

class ResNetBuilder {
 public:
  // A bias-free convolution; `size` is the input's height and width, updated to the output's.
  void conv(const std::string& name, std::size_t cin, std::size_t cout, std::size_t k, std::size_t stride,
            std::size_t& size) {
    size /= stride;
    layers.add({{name + ".weight", cout * cin * k * k}}, 2.0 * k * k * cin * cout * size * size);
  }
  // Batch norm: normalise, scale and shift each activation.
  void bn(const std::string& name, std::size_t c, std::size_t size) {
    layers.add({{name + ".weight", c}, {name + ".bias", c}}, 4.0 * c * size * size);
  }
  LayerList layers;
};

}  // namespace

Workload resnet50_workload() {
  ResNetBuilder b;
  std::size_t size = 224;
  b.conv("conv1", 3, 64, 7, 2, size);
  b.bn("bn1", 64, size);
  size /= 2;  // max pool
  const std::size_t planes[] = {64, 128, 256, 512}, blocks[] = {3, 4, 6, 3}, strides[] = {1, 2, 2, 2};
  const std::size_t expansion = 4;
  std::size_t inplanes = 64;
  for (int l = 0; l < 4; ++l) {
    for (std::size_t i = 0; i < blocks[l]; ++i) {
      const std::string p = "layer" + std::to_string(l + 1) + "." + std::to_string(i) + ".";
      const std::size_t stride = i == 0 ? strides[l] : 1, width = planes[l], out = planes[l] * expansion;
      const std::size_t in_size = size;
      b.conv(p + "conv1", inplanes, width, 1, 1, size);
      b.bn(p + "bn1", width, size);
      b.conv(p + "conv2", width, width, 3, stride, size);
      b.bn(p + "bn2", width, size);
      b.conv(p + "conv3", width, out, 1, 1, size);
      b.bn(p + "bn3", out, size);
      if (i == 0) {  // the first block of each stage changes width (and size): a projection shortcut
        std::size_t ds = in_size;
        b.conv(p + "downsample.0", inplanes, out, 1, stride, ds);
        b.bn(p + "downsample.1", out, ds);
      }
      inplanes = out;
    }
  }
  b.layers.add({{"fc.weight", 1000 * 2048}, {"fc.bias", 1000}}, 2.0 * 2048 * 1000);
  Workload w;
  w.name = "resnet50";
  w.description = "torchvision ResNet-50, 224x224 images";
  w.tensors = b.layers.backward_order();
  return w;
}

}  // namespace collbench
