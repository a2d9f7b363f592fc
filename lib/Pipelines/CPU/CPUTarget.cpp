//===- CPUTarget.cpp - The CPU the code generation tunes for --------------===//

#include "mlprog/Pipelines/CPU/CPUTarget.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlprog;

/// Whether the LLVM feature string `features` enables `name` ("+name").
static bool hasFeature(llvm::StringRef features, llvm::StringRef name) {
  llvm::SmallVector<llvm::StringRef> list;
  features.split(list, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  return llvm::is_contained(list, ("+" + name).str());
}

/// The host's features as an LLVM feature string ("+avx2,+fma,-avx512f").
static std::string getHostFeatures() {
  std::string result;
  for (const auto &feature : llvm::sys::getHostCPUFeatures()) {
    if (!result.empty())
      result += ",";
    result += (feature.getValue() ? "+" : "-") + feature.getKey().str();
  }
  return result;
}

CPUTarget CPUTarget::getHost() { return get("", "", ""); }

CPUTarget CPUTarget::get(llvm::StringRef cpu, llvm::StringRef features,
                         llvm::StringRef triple) {
  CPUTarget target;
  bool nativeCPU = cpu.empty() || cpu == "native";
  target.cpu = nativeCPU ? llvm::sys::getHostCPUName().str() : cpu.str();
  target.features = (features.empty() || features == "native")
                        ? (nativeCPU ? getHostFeatures() : std::string())
                        : features.str();
  target.triple = triple.empty() ? llvm::sys::getProcessTriple() : triple.str();
  return target;
}

CPUTarget CPUTarget::getForFeatures(llvm::StringRef features) {
  if (features.empty() || features == "native")
    return getHost();
  CPUTarget target;
  target.features = features.str();
  return target;
}

unsigned CPUTarget::getVectorWidthF32() const {
  if (hasFeature(features, "avx512f"))
    return 16;
  if (hasFeature(features, "avx") || hasFeature(features, "avx2"))
    return 8;
  return 4;
}

unsigned CPUTarget::getNumVectorRegisters() const {
  return hasFeature(features, "avx512f") ? 32 : 16;
}
