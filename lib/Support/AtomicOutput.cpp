//===- AtomicOutput.cpp - No half-written tool outputs --------------------===//

#include "mlprog/Support/AtomicOutput.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <string>
#include <vector>

using namespace llvm;

/// The temporary file of this process, removed at exit unless renamed.
static std::string &getPendingTemp() {
  static std::string path;
  return path;
}

/// The final output path of the running tool (getAtomicOutputPath).
static std::string &getFinalOutput() {
  static std::string path;
  return path;
}

StringRef mlprog::getAtomicOutputPath() { return getFinalOutput(); }

static void removePendingTemp() {
  if (!getPendingTemp().empty())
    sys::fs::remove(getPendingTemp());
}

int mlprog::runWithAtomicOutput(int argc, char **argv,
                                function_ref<int(int, char **)> toolMain) {
  std::vector<std::string> args(argv, argv + argc);
  // Find the output argument: "-o F", "--o F", "-o=F", "--o=F".
  std::string output;
  size_t outputIndex = 0;
  bool joined = false;
  for (size_t i = 1; i < args.size(); ++i) {
    StringRef arg = args[i];
    if (arg == "--")
      break;
    if ((arg == "-o" || arg == "--o") && i + 1 < args.size()) {
      output = args[i + 1];
      outputIndex = i + 1;
      joined = false;
    } else if (arg.starts_with("-o=") || arg.starts_with("--o=")) {
      output = arg.substr(arg.find('=') + 1).str();
      outputIndex = i;
      joined = true;
    }
  }
  if (output.empty() || output == "-")
    return toolMain(argc, argv);

  SmallString<256> model(output);
  model += ".tmp-%%%%%%";
  SmallString<256> temp;
  int fd;
  if (std::error_code ec = sys::fs::createUniqueFile(model, fd, temp)) {
    WithColor::error(errs(), sys::path::filename(args[0]))
        << "cannot write '" << output << "': " << ec.message() << "\n";
    return 1;
  }
  sys::fs::closeFile(fd);
  getPendingTemp() = std::string(temp);
  sys::RemoveFileOnSignal(temp);
  std::atexit(removePendingTemp);

  std::string &slot = args[outputIndex];
  slot = joined ? slot.substr(0, slot.find('=') + 1) + std::string(temp)
                : std::string(temp);
  std::vector<char *> newArgv;
  for (std::string &arg : args)
    newArgv.push_back(arg.data());
  newArgv.push_back(nullptr);
  getFinalOutput() = output;
  int status = toolMain(argc, newArgv.data());
  getFinalOutput().clear();
  if (status == 0) {
    if (std::error_code ec = sys::fs::rename(temp, output)) {
      WithColor::error(errs(), sys::path::filename(args[0]))
          << "cannot write '" << output << "': " << ec.message() << "\n";
      status = 1;
    }
  }
  removePendingTemp();
  sys::DontRemoveFileOnSignal(temp);
  getPendingTemp().clear();
  return status;
}
