//===- CompileProgress.cpp - Phases of a compilation, timed ---------------===//

#include "mlprog/Support/CompileProgress.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Process.h"

using namespace mlprog;

static double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t)
      .count();
}

CompileProgress::CompileProgress(llvm::StringRef tool, ProgressMode mode,
                                 bool timing, llvm::raw_ostream &os)
    : tool(tool.str()), os(os),
      showProgress(mode == ProgressMode::Always ||
                   (mode == ProgressMode::Auto &&
                    llvm::sys::Process::StandardErrIsDisplayed())),
      timing(timing), start(std::chrono::steady_clock::now()) {
  manager.setEnabled(timing);
  manager.setDisplayMode(mlir::DefaultTimingManager::DisplayMode::Tree);
  root = manager.getRootScope();
}

CompileProgress::~CompileProgress() {
  fail();
  if (context)
    context->getDiagEngine().eraseHandler(handler);
}

void CompileProgress::attachTo(mlir::MLIRContext &ctx) {
  if (!showProgress || context)
    return;
  context = &ctx;
  // Runs before the tool's own handler (the last registered runs first)
  // and passes every diagnostic on to it.
  handler = ctx.getDiagEngine().registerHandler([this](mlir::Diagnostic &) {
    interrupt();
    return mlir::failure();
  });
}

void CompileProgress::interrupt() {
  if (!lineOpen)
    return;
  os << "\n";
  os.flush();
  lineOpen = false;
}

void CompileProgress::endLine(llvm::StringRef outcome) {
  if (!showProgress)
    return;
  if (!lineOpen)
    os << tool << ": " << phaseName << ": ";
  os << outcome << "\n";
  os.flush();
  lineOpen = false;
}

void CompileProgress::endPhase() {
  if (!current)
    return;
  current->stop();
  current.reset();
  endLine(llvm::formatv("{0:F2} s", secondsSince(phaseStart)).str());
}

mlir::TimingScope &CompileProgress::phase(llvm::StringRef name) {
  endPhase();
  phaseName = name.str();
  if (showProgress) {
    os << tool << ": " << name << "... ";
    os.flush();
    lineOpen = true;
  }
  phaseStart = std::chrono::steady_clock::now();
  current.emplace(root.nest(name));
  return *current;
}

void CompileProgress::finish() {
  if (finished)
    return;
  finished = true;
  endPhase();
  if (showProgress)
    os << tool << ": " << llvm::format("total %.2f s\n", secondsSince(start));
  root.stop();
  if (timing)
    manager.print();
  os.flush();
}

void CompileProgress::fail() {
  if (finished)
    return;
  finished = true;
  if (current) {
    current.reset();
    endLine("failed");
  }
  root.stop();
  // No report: the timers of the failed phase are incomplete.
  manager.setEnabled(false);
}

CompileProgressCLOptions::CompileProgressCLOptions(
    llvm::cl::OptionCategory &category)
    : progress(
          "progress", llvm::cl::ValueOptional, llvm::cl::cat(category),
          llvm::cl::init(ProgressMode::Auto),
          llvm::cl::desc("Print each compilation phase and its time on "
                         "stderr (default: when stderr is a terminal)"),
          llvm::cl::values(
              clEnumValN(ProgressMode::Auto, "auto",
                         "when stderr is a terminal"),
              clEnumValN(ProgressMode::Always, "always", "always"),
              clEnumValN(ProgressMode::Always, "", "always (bare --progress)"),
              clEnumValN(ProgressMode::Never, "never", "never"))),
      timing("timing", llvm::cl::cat(category),
             llvm::cl::desc("Print MLIR's timing report of the compilation "
                            "on stderr: each phase, with the lowering's "
                            "passes under it")) {}
