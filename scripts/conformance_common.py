"""What the peer-suite conformance drivers share.

scripts/mil_conformance.py (coremltools' op tests) and
scripts/torch_opinfo_conformance.py (PyTorch's OpInfo database) run a
peer's own tests on mlprog and check them against an expected-failures
list. Both take the same options, keep results as JSON lines, and read and
check the list the same way; that part lives here. The suite-specific work
(collecting and running cases, the coverage page) stays in each driver.

Expected-failures list format: `#` comment lines (a `# <tool> <version>`
line records the peer's version), then one `case-id<TAB>status<TAB>reason`
line per case that does not pass.
"""
import json
import os
import re


def add_suite_arguments(parser, *, root, xfail, ci_subset, timeout, unit):
    """The options every conformance driver has.

    `xfail` and `ci_subset` are the default list paths, `timeout` the
    default seconds per case and `unit` what one results file holds (for
    --results-dir's help, e.g. "test file's" or "chunk's")."""
    parser.add_argument("--build-dir", default=os.path.join(root, "build"))
    parser.add_argument("-O", "--opt-level", type=int, choices=range(4),
                        default=0, metavar="N",
                        help="lowering and JIT level (default 0: the suite "
                        "checks results, and -O0 compiles fastest)")
    parser.add_argument("--timeout", type=float, default=timeout,
                        help="seconds per case before it counts as a "
                        "timeout")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count())
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print every case that does not pass, not "
                        "only regressions")
    parser.add_argument("--xfail", default=xfail)
    parser.add_argument("--no-xfail", action="store_true",
                        help="every counted case that does not pass is an "
                        "error")
    parser.add_argument("--ci-subset", action="store_true",
                        help="only the cases of " +
                        os.path.relpath(ci_subset, root))
    parser.add_argument("--write-xfail", action="store_true",
                        help="rewrite the expected-failures list and the CI "
                        "subset from this (full) run")
    parser.add_argument("--write-coverage", metavar="FILE",
                        help="write the op coverage page")
    parser.add_argument("--results-dir", metavar="DIR",
                        help=f"keep each {unit} results (JSON lines) in DIR "
                        "instead of a temporary folder")
    parser.add_argument("--no-run", action="store_true",
                        help="run nothing: report (and write the lists and "
                        "the page) from the results in --results-dir, e.g. "
                        "of a run that was stopped")


def check_build_dir(parser, args):
    """Makes --build-dir absolute; an error unless it holds the Python
    module (not needed with --no-run)."""
    args.build_dir = os.path.abspath(args.build_dir)
    if args.no_run:
        if not args.results_dir:
            parser.error("--no-run needs --results-dir")
        return
    if not os.path.isdir(os.path.join(args.build_dir, "python", "mlprog")):
        parser.error(f"no Python module in {args.build_dir}/python "
                     "(build the project first)")


def read_jsonl(path):
    """The result entries of one results file; a line cut short by a
    crash of the process that wrote it is skipped."""
    entries = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if line.strip():
                    try:
                        entries.append(json.loads(line))
                    except ValueError:
                        pass
    return entries


def load_xfail(path, tool=None):
    """({case id: status}, the version of `tool` the list was written
    under, or None)."""
    listed, version = {}, None
    if not os.path.exists(path):
        return listed, version
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            m = tool and re.match(r"# %s (\S+)" % re.escape(tool), line)
            if m:
                version = m.group(1)
            if not line or line.startswith("#"):
                continue
            case, status, *_ = line.split("\t")
            listed[case] = status
    return listed, version


def check_against_xfail(results, listed, failing, verbose, key=None):
    """Prints each case of `results` whose status is in `failing` and that
    `listed` does not name (a regression; every failing case with
    `verbose`), then each listed case that passed ("UNEXPECTED PASS").
    Returns (regressions, unexpected passes), as case ids."""
    regressions, unexpected = [], []
    for case in sorted(results, key=key):
        r = results[case]
        if r["status"] in failing:
            if case not in listed:
                regressions.append(case)
            if verbose or case not in listed:
                print(f"{r['status'].upper()}: {case}: {r['detail']}")
        elif r["status"] == "passed" and case in listed:
            unexpected.append(case)
    for case in unexpected:
        print(f"UNEXPECTED PASS: {case}")
    return regressions, unexpected
