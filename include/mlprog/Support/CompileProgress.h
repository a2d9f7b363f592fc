//===- CompileProgress.h - Phases of a compilation, timed -------*- C++ -*-===//
//
// A large model spends seconds to minutes in mlprog's lowering and in LLVM.
// The tools (`mlprog-run`, `mlprog-compile`) and the Python `compile()` name
// each phase as it starts and its wall time when it ends, on stderr and when
// stderr is a terminal unless told otherwise; `--timing` prints MLIR's
// timing report at the end: the phases, with every pass of the lowering
// nested under it.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_SUPPORT_COMPILEPROGRESS_H
#define MLPROG_SUPPORT_COMPILEPROGRESS_H

#include "mlir/Support/Timing.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>

#include <chrono>
#include <optional>
#include <string>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace mlprog {

/// Whether `CompileProgress` prints phase lines.
enum class ProgressMode {
  /// When stderr is a terminal (`llvm::sys::Process::StandardErrIsDisplayed`).
  Auto,
  Always,
  Never,
};

/// The phases of one compilation. Each `phase` call ends the previous phase
/// and starts the next; `finish` ends the last one, `fail` abandons it.
/// With progress shown, a phase prints "<tool>: <name>... " when it starts
/// and "<seconds> s" (or "failed") when it ends, then `finish` prints the
/// total; a diagnostic in between (see `attachTo`) moves the end to a line
/// of its own, "<tool>: <name>: <seconds> s". With `timing`, `finish`
/// prints MLIR's `DefaultTimingManager` report (wall times, tree display)
/// to stderr. Progress and timing cost nothing when both are off.
class CompileProgress {
public:
  /// `tool` prefixes the progress lines ("mlprog-compile"). `os` receives
  /// them (stderr by default) and must outlive this object.
  CompileProgress(llvm::StringRef tool, ProgressMode mode, bool timing,
                  llvm::raw_ostream &os = llvm::errs());
  /// Abandons an unfinished compilation as `fail` does.
  ~CompileProgress();
  CompileProgress(const CompileProgress &) = delete;
  CompileProgress &operator=(const CompileProgress &) = delete;

  /// Ends the current phase (if any) and starts `name` ("lowering
  /// (--mlprog-lower-to-cpu, -O2)"). The returned scope lives until the next
  /// `phase`, `endPhase`, `finish` or `fail`; give it to
  /// `mlir::PassManager::enableTiming` to nest the passes' times under the
  /// phase.
  mlir::TimingScope &phase(llvm::StringRef name);
  /// Ends the current phase, if any, printing its time; work until the
  /// next `phase` belongs to none.
  void endPhase();
  /// Ends the current phase and prints the total and the timing report.
  /// Later calls (and `fail`) do nothing.
  void finish();
  /// Ends the current phase as "failed", before the caller reports why; no
  /// total and no timing report. Later calls (and `finish`) do nothing.
  void fail();
  /// Ends an open phase line so that other output starts on a line of its
  /// own.
  void interrupt();
  /// Calls `interrupt` before each diagnostic of `context` reaches the
  /// handlers registered before this call (which still print it). The
  /// context must outlive this object.
  void attachTo(mlir::MLIRContext &context);

  /// Whether phase lines are printed.
  bool showsProgress() const { return showProgress; }
  /// Whether the timing report is collected.
  bool collectsTiming() const { return timing; }

private:
  void endLine(llvm::StringRef outcome);

  std::string tool;
  llvm::raw_ostream &os;
  bool showProgress;
  bool timing;
  bool finished = false;
  /// A "<tool>: <phase>... " line waits for its end.
  bool lineOpen = false;
  std::string phaseName;
  mlir::DefaultTimingManager manager;
  mlir::TimingScope root;
  std::optional<mlir::TimingScope> current;
  std::chrono::steady_clock::time_point start, phaseStart;
  mlir::MLIRContext *context = nullptr;
  uint64_t handler = 0;
};

/// The `--progress[=auto|always|never]` and `--timing` options of
/// `mlprog-run` and `mlprog-compile`, registered in `category`.
struct CompileProgressCLOptions {
  explicit CompileProgressCLOptions(llvm::cl::OptionCategory &category);
  llvm::cl::opt<ProgressMode> progress;
  llvm::cl::opt<bool> timing;
};

} // namespace mlprog

#endif // MLPROG_SUPPORT_COMPILEPROGRESS_H
