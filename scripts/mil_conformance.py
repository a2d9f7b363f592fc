#!/usr/bin/env python3
"""Runs coremltools' own MIL op tests on mlprog and compares the outputs.

The suite is the op tests that ship inside the coremltools package
(coremltools/converters/mil/mil/ops/tests/iOS14..iOS18) of .venv-coreml,
pinned in scripts/requirements/coreml.txt (`scripts/setup-venv.sh --with
coreml`; install-deps.sh makes it). Each test builds its program with
the MIL Builder, converts it to an ML Program with `ct.convert` (which works
on Linux) and computes the expected outputs with numpy/scipy; where it would
predict with Core ML (macOS only), scripts/mil_conformance_plugin.py
imports the saved `.mlpackage` with mlprog, JIT-compiles it, runs it and
compares every output under the test's own tolerances. Run it with
.venv-coreml's Python, after building the Python module: that environment
sees Debian's torch 1.13, with which many tests (conv, recurrent,
attention, quantization) compute their expected values.

A case (one test id; only ML Program backends) is

  passed       every prediction matched;
  unsupported  the importer refused the program with "unsupported ..."
               (a feature it does not implement);
  failed       any other import, compile or run error, a mismatch, a
               crash or a timeout;
  n/a          never reached a prediction: type-inference and
               frontend-only tests, cases coremltools skips on Linux or in
               this configuration, cases whose conversion fails inside
               coremltools. Not counted.

Test files whose imports need packages the environment lacks are reported
as not collected.

Expected outcomes: the expected-failures list (--xfail, default
test/Import/MIL/conformance-xfail.txt; one `test-id status reason` line per
case that does not pass). A case that does not pass and is not listed is a
REGRESSION (exit status 1); a listed case that passes is an unexpected pass
(update the list).

  full suite:           .venv-coreml/bin/python scripts/mil_conformance.py -j2
  fast subset (CI):     .venv-coreml/bin/python scripts/mil_conformance.py --ci-subset
  after a change (full run; rewrites the list, the CI subset and the page):
      .venv-coreml/bin/python scripts/mil_conformance.py -j2 --write-xfail
          --write-coverage docs/mil-op-coverage.md
"""
import argparse
import collections
import concurrent.futures
import glob
import os
import re
import subprocess
import sys
import tempfile
import time

from conformance_common import (add_suite_arguments, check_against_xfail,
                                check_build_dir, load_xfail, read_jsonl)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
XFAIL = os.path.join(ROOT, "test", "Import", "MIL", "conformance-xfail.txt")
CI_SUBSET = os.path.join(ROOT, "test", "Import", "MIL",
                         "conformance-ci-subset.txt")
COUNTED = ("passed", "failed", "unsupported")


def tests_dir():
    import coremltools
    return os.path.join(os.path.dirname(coremltools.__file__), "converters",
                        "mil", "mil", "ops", "tests")


def test_files(root, pattern):
    files = sorted(glob.glob(os.path.join(root, "iOS1[4-8]", "test_*.py")))
    rel = [os.path.relpath(f, root) for f in files]
    return [f for f in rel if re.search(pattern, f)]


def read_results(path):
    """The plugin's JSON lines; ids on one line (see the plugin's _test_id)."""
    entries = read_jsonl(path)
    for e in entries:
        e["id"] = e["id"].replace("\n", "\\n")
    return entries


def run_file(test_file, args, root, work):
    """Runs one test file in its own pytest process; after a crash or a
    timeout, records the test that was running and resumes after it.
    Returns (results by id, collection error or None)."""
    stem = re.sub(r"\W", "_", test_file)
    results_path = os.path.join(work, stem + ".jsonl")
    deselect_path = os.path.join(work, stem + ".deselect")
    open(deselect_path, "w").close()
    env = dict(os.environ)
    env.update({
        "PYTHONPATH": os.pathsep.join(
            [os.path.join(args.build_dir, "python"), HERE]),
        "MLPROG_MIL_RESULTS": results_path,
        "MLPROG_MIL_DESELECT": deselect_path,
        "MLPROG_MIL_OPT_LEVEL": str(args.opt_level),
        "MLPROG_MIL_TIMEOUT": str(args.timeout),
        "PYMIL_TEST_TARGETS": "mlprogram",
        "INCLUDE_MIL_FP32_UNIT_TESTS": "1",
        "OMP_NUM_THREADS": "1",
    })
    if args.precision != "both":
        env["MLPROG_MIL_PRECISION"] = args.precision
    if args.select:
        env["MLPROG_MIL_SELECT"] = args.select
    mil_dir = os.path.dirname(os.path.dirname(os.path.dirname(root)))
    done = {}
    for _ in range(1000):
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "-p", "mil_conformance_plugin", "--rootdir", mil_dir,
               "-W", "ignore", os.path.join(root, test_file)]
        if args.filter:
            cmd += ["-k", args.filter]
        proc = subprocess.run(cmd, cwd=mil_dir, env=env, capture_output=True,
                              text=True)
        started = None
        for entry in read_results(results_path):
            if entry["status"] == "started":
                started = entry["id"]
            else:
                done[entry["id"]] = entry
                started = None
        if proc.returncode in (0, 1, 5):
            return done, None
        if proc.returncode in (2, 3, 4) and started is None:
            tail = [l for l in proc.stdout.splitlines() if l.startswith("E ")]
            return done, (tail[-1][2:].strip() if tail else
                          f"pytest exit {proc.returncode}")
        if started is None:
            return done, f"pytest exit {proc.returncode} outside a test"
        why = "timeout" if "Timeout" in proc.stderr else \
            f"crash (exit {proc.returncode})"
        done[started] = {"id": started, "status": "failed", "detail": why,
                         "ops": []}
        with open(deselect_path, "w") as f:
            f.write("\n".join(done) + "\n")
        os.remove(results_path)
    return done, "too many crashes"


def test_class(test_id):
    """`iOS15/test_x.py::TestRelu::test_y[...]` -> ('iOS15', 'TestRelu')."""
    parts = test_id.split("::")
    return parts[0].split("/")[0], (parts[1] if len(parts) > 2 else
                                    parts[1].split("[")[0])


def write_xfail(path, results, not_collected):
    with open(path, "w") as f:
        f.write("# coremltools op tests that do not pass on mlprog (written "
                "by scripts/mil_conformance.py --write-xfail).\n"
                "# test-id<TAB>status<TAB>reason\n")
        for test_id in sorted(results):
            r = results[test_id]
            if r["status"] in ("failed", "unsupported"):
                f.write(f"{test_id}\t{r['status']}\t{r['detail']}\n")


def write_ci_subset(path, results, per_class=2):
    """The first `per_class` passing cases of every test class."""
    picked = collections.defaultdict(list)
    for test_id in sorted(results):
        if results[test_id]["status"] == "passed":
            key = test_class(test_id)
            if len(picked[key]) < per_class:
                picked[key].append(test_id)
    with open(path, "w") as f:
        for key in sorted(picked):
            f.write("\n".join(picked[key]) + "\n")


COVERAGE_HEADER = """# Core ML (MIL) op coverage: coremltools' own op tests

Generated by `scripts/mil_conformance.py --write-coverage` from the op tests
that ship in coremltools {version} (`coremltools/converters/mil/mil/ops/tests`),
run on mlprog: each case's program is built with coremltools' MIL Builder,
converted with `ct.convert(..., convert_to="mlprogram")`, imported with
`mlprog.import_mil`, JIT-compiled and compared with the outputs the test
computes with numpy (the test's own tolerances; fp16 programs with
coremltools' widened ones). Cases that never reach a prediction (type
inference, frontend-only, skipped by coremltools) are not counted. Status:
**pass** (every case passes), **partial**, **unsupported** (no case passes;
the importer reports the op or a variant as unsupported), **fail**.

"""


def write_coverage(path, results, not_collected, version, command):
    by_class = collections.defaultdict(collections.Counter)
    reasons = collections.defaultdict(collections.Counter)
    for test_id, r in results.items():
        if r["status"] not in COUNTED:
            continue
        key = test_class(test_id)
        by_class[key][r["status"]] += 1
        if r["status"] != "passed":
            reasons[key][r["detail"][:100]] += 1
    total = collections.Counter()
    lines = []
    for (opset, cls) in sorted(by_class):
        c = by_class[(opset, cls)]
        total.update(c)
        n = sum(c.values())
        if c["passed"] == n:
            status = "pass"
        elif c["passed"]:
            status = "partial"
        elif c["unsupported"]:
            status = "unsupported"
        else:
            status = "fail"
        reason = ""
        if reasons[(opset, cls)]:
            reason = reasons[(opset, cls)].most_common(1)[0][0]
            reason = reason.replace("|", "\\|")
        lines.append(f"| {opset} | `{cls}` | {status} | {c['passed']}/{n} | "
                     f"{c['unsupported']} | {c['failed']} | {reason} |")
    n = sum(total.values())
    with open(path, "w") as f:
        f.write(COVERAGE_HEADER.format(version=version))
        f.write(f"**{total['passed']} of {n} cases pass "
                f"({100.0 * total['passed'] / max(n, 1):.1f}%)**, "
                f"{total['unsupported']} unsupported, {total['failed']} "
                f"failed; command: `{command}`.\n\n")
        if not_collected:
            f.write("Test files not collected (imports the environment "
                    "cannot satisfy), not run, or not run to the end; the "
                    "figures above leave out what they did not run:\n\n")
            for name, why in sorted(not_collected.items()):
                f.write(f"- `{name}`: {why}\n")
            f.write("\n")
        f.write("| opset folder | test class | status | passed | "
                "unsupported | failed | most common reason |\n"
                "| --- | --- | --- | --- | --- | --- | --- |\n")
        f.write("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    add_suite_arguments(parser, root=ROOT, xfail=XFAIL, ci_subset=CI_SUBSET,
                        timeout=120, unit="test file's")
    parser.add_argument("--files", default="",
                        help="only test files whose path (iOSnn/test_x.py) "
                        "matches this regex")
    parser.add_argument("--filter", default="",
                        help="pytest -k expression")
    parser.add_argument("--precision", choices=("fp32", "fp16", "both"),
                        default="both",
                        help="the programs' compute precision (default: both "
                        "of coremltools' ML Program configurations)")
    args = parser.parse_args()
    if (args.write_xfail or args.write_coverage) and \
            (args.filter or args.ci_subset or args.precision != "both" or
             (args.files and not args.no_run)):
        parser.error("--write-xfail/--write-coverage need a full run")
    check_build_dir(parser, args)
    args.select = CI_SUBSET if args.ci_subset else None

    import coremltools
    root = tests_dir()
    files = test_files(root, args.files)
    if args.ci_subset:
        wanted = {l.split("::")[0] for l in open(CI_SUBSET) if l.strip()}
        files = [f for f in files if f in wanted]
    start = time.time()
    results, not_collected = {}, {}
    if args.no_run:
        for f in files:
            path = os.path.join(args.results_dir,
                                re.sub(r"\W", "_", f) + ".jsonl")
            raw = read_results(path)
            entries = [e for e in raw if e["status"] != "started"]
            if not entries:
                not_collected[f] = "not run (no results in --results-dir)"
            elif raw[-1]["status"] == "started":
                not_collected[f] = (f"incomplete: the run stopped after "
                                    f"{len(entries)} of its cases")
            results.update({e["id"]: e for e in entries})
    else:
        with tempfile.TemporaryDirectory(prefix="mil-conformance-") as tmp, \
                concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            work = args.results_dir or tmp
            os.makedirs(work, exist_ok=True)
            futures = {pool.submit(run_file, f, args, root, work): f
                       for f in files}
            for future in concurrent.futures.as_completed(futures):
                done, error = future.result()
                results.update(done)
                if error:
                    not_collected[futures[future]] = error
                counts = collections.Counter(r["status"]
                                             for r in done.values())
                print(f"{futures[future]}: " + ", ".join(
                    f"{counts[s]} {s}" for s in COUNTED + ("n/a",)) +
                    (f" (not collected: {error})" if error else ""),
                    flush=True)

    listed = {} if args.no_xfail else load_xfail(args.xfail)[0]
    regressions, unexpected = check_against_xfail(
        results, listed, ("failed", "unsupported"), args.verbose)
    if args.ci_subset:
        subset = {l.strip() for l in open(CI_SUBSET) if l.strip()}
        missing = subset - set(results)
        for test_id in sorted(missing):
            print(f"REGRESSION (not run): {test_id}")
            regressions.append(test_id)

    counts = collections.Counter(r["status"] for r in results.values())
    counted = sum(counts[s] for s in COUNTED)
    print(f"{counts['passed']} passed, {counts['failed']} failed, "
          f"{counts['unsupported']} unsupported of {counted} cases "
          f"({100.0 * counts['passed'] / max(counted, 1):.1f}% pass); "
          f"{counts['n/a']} n/a; {len(not_collected)} files not collected; "
          f"{len(regressions)} regressions, {len(unexpected)} unexpected "
          f"passes; {time.time() - start:.0f} s")
    if args.write_xfail:
        write_xfail(args.xfail, results, not_collected)
        write_ci_subset(CI_SUBSET, results)
    if args.write_coverage:
        command = ".venv-coreml/bin/python scripts/mil_conformance.py " + \
            " ".join(sys.argv[1:])
        write_coverage(args.write_coverage, results, not_collected,
                       coremltools.__version__, command)
    return 1 if regressions and not args.write_xfail else 0


if __name__ == "__main__":
    sys.exit(main())
