//===- CPUTarget.cpp - The CPU the code generation tunes for --------------===//

#include "mlprog/Pipelines/CPU/CPUTarget.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <memory>
#include <unistd.h>

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

/// Ways of the host's L1 data cache (glibc's sysconf, from CPUID), or the
/// default when the host does not say.
static unsigned getHostL1Ways() {
#ifdef _SC_LEVEL1_DCACHE_ASSOC
  long ways = sysconf(_SC_LEVEL1_DCACHE_ASSOC);
  if (ways > 0)
    return ways;
#endif
  return CPUTarget().l1Ways;
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
  if (nativeCPU)
    target.l1Ways = getHostL1Ways();
  return target;
}

/// " (did you mean 'X'?)" for the entry of `known` closest to `name`, or ""
/// when none is close (an edit distance above a third of the name).
template <typename KV>
static std::string suggest(llvm::StringRef name, llvm::ArrayRef<KV> known) {
  llvm::StringRef best;
  unsigned bestDistance = name.size() / 3 + 1;
  for (const KV &entry : known) {
    unsigned distance =
        name.edit_distance(entry.Key, /*AllowReplacements=*/true, bestDistance);
    if (distance < bestDistance) {
      best = entry.Key;
      bestDistance = distance;
    }
  }
  return best.empty() ? "" : (" (did you mean '" + best + "'?)").str();
}

llvm::Error CPUTarget::verify(llvm::StringRef cpu, llvm::StringRef features,
                              llvm::StringRef triple) {
  bool checkCPU = !cpu.empty() && cpu != "native";
  bool checkFeatures = !features.empty() && features != "native";
  if (!checkCPU && !checkFeatures && triple.empty())
    return llvm::Error::success();
  llvm::InitializeAllTargetInfos();
  llvm::InitializeAllTargetMCs();
  llvm::Triple targetTriple(triple.empty() ? llvm::sys::getProcessTriple()
                                           : triple.str());
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(targetTriple, error);
  if (!target)
    return llvm::createStringError("target triple '" + targetTriple.str() +
                                   "': " + error);
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      target->createMCSubtargetInfo(targetTriple, "", ""));
  if (!info)
    return llvm::Error::success();
  if (checkCPU && !info->isCPUStringValid(cpu))
    return llvm::createStringError(
        "unknown CPU '" + cpu + "' for " + targetTriple.str() +
        suggest(cpu, info->getAllProcessorDescriptions()));
  llvm::SmallVector<llvm::StringRef> list;
  if (checkFeatures)
    features.split(list, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (llvm::StringRef feature : list) {
    feature = feature.trim();
    if (!feature.starts_with("+") && !feature.starts_with("-"))
      return llvm::createStringError("CPU feature '" + feature +
                                     "' must start with '+' or '-'");
    llvm::StringRef name = feature.drop_front();
    if (!llvm::any_of(info->getAllProcessorFeatures(),
                      [&](const auto &kv) { return name == kv.Key; }))
      return llvm::createStringError(
          "unknown CPU feature '" + name + "' for " + targetTriple.str() +
          suggest(name, info->getAllProcessorFeatures()));
  }
  return llvm::Error::success();
}

CPUTarget CPUTarget::getForFeatures(llvm::StringRef features) {
  // Exactly the host's features: the pipeline spelled out "native".
  if (features.empty() || features == "native" || features == getHostFeatures())
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

bool CPUTarget::hasAVX512VNNI() const {
  return hasFeature(features, "avx512f") && hasFeature(features, "avx512bw") &&
         hasFeature(features, "avx512vnni");
}
