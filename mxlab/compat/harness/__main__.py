"""``python -m mxlab.compat.harness {mxnet,d2l,docs}``: run MXNet's unittests or D2L's MXNet code
through the alias and print tables; ``docs`` rewrites docs/compat.md from saved results.

Examples::

    python -m mxlab.compat.harness mxnet --src $MXLAB_MXNET_SRC [--files test_gluon ...] --save
    python -m mxlab.compat.harness mxnet --src $MXLAB_MXNET_V1_SRC --save     # a 1.x tree (1.9.1)
    python -m mxlab.compat.harness d2l --src $MXLAB_D2L_SRC [--sections chapter_preliminaries/..]
    python -m mxlab.compat.harness d2l --python /path/to/mxnet-1.9.1/bin/python   # the oracle
    python -m mxlab.compat.harness docs --mxnet-src $MXLAB_MXNET_SRC --d2l-src $MXLAB_D2L_SRC \
        [--mxnet-v1-src $MXLAB_MXNET_V1_SRC]
"""
import argparse
import os
import sys

from . import d2l_suite, docs, mxnet_suite, report


def _parser():
    parser = argparse.ArgumentParser(prog="python -m mxlab.compat.harness", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    mx = sub.add_parser("mxnet", help="MXNet's tests/python/unittest files")
    mx.add_argument("--src", default=os.environ.get("MXLAB_MXNET_SRC"),
                    help="apache/mxnet checkout, master or a 1.x release such as 1.9.1 "
                         "(default: $MXLAB_MXNET_SRC)")
    mx.add_argument("--files", nargs="*", help="only these files (test_gluon or test_gluon.py)")
    mx.add_argument("--timeout", type=int, default=240, help="seconds per file (default 240)")
    mx.add_argument("--jobs", type=int, default=1, help="files run at once (default 1)")
    d2l = sub.add_parser("d2l", help="D2L chapters' MXNet code")
    d2l.add_argument("--src", default=os.environ.get("MXLAB_D2L_SRC"),
                     help="d2l-ai/d2l-en checkout (default: $MXLAB_D2L_SRC)")
    d2l.add_argument("--sections", nargs="*", help="only these (chapter_x/section[.md])")
    d2l.add_argument("--all-chapters", action="store_true",
                     help="also the chapters beyond attention/optimization/performance")
    d2l.add_argument("--timeout", type=int, default=300, help="seconds per section (default 300)")
    d2l.add_argument("--jobs", type=int, default=1, help="sections run at once (default 1)")
    d2l.add_argument("--python", help="run on real MXNet with this interpreter (the oracle run; "
                     "--save then stores the results as d2l-oracle)")
    for p in (mx, d2l):
        p.add_argument("--save", action="store_true",
                       help="store the results under docs/compat/ (a partial run merges in)")
    dp = sub.add_parser("docs", help="rewrite docs/compat.md (runs both suites unless --no-run)")
    dp.add_argument("--mxnet-src", default=os.environ.get("MXLAB_MXNET_SRC"))
    dp.add_argument("--d2l-src", default=os.environ.get("MXLAB_D2L_SRC"))
    dp.add_argument("--mxnet-v1-src", default=os.environ.get("MXLAB_MXNET_V1_SRC"),
                    help="a 1.x release's checkout (1.9.1): its unittests get their own table")
    dp.add_argument("--no-run", action="store_true", help="render from the saved results only")
    dp.add_argument("--label", help="also append the headline numbers to the history as LABEL")
    dp.add_argument("--jobs", type=int, default=1, help="files/sections run at once")
    return parser


def _need(src, what):
    if not src or not os.path.isdir(src):
        sys.exit(f"error: give --src (or set {what}) to a checkout; got {src!r}")
    return src


def main(argv=None):
    args = _parser().parse_args(argv)
    if args.command == "mxnet":
        results = mxnet_suite.run_suite(_need(args.src, "MXLAB_MXNET_SRC"), args.files,
                                        args.timeout, progress=lambda s: print(s, flush=True),
                                        jobs=args.jobs)
        print(report.mxnet_tables(results))
        if args.save:
            docs.save(mxnet_suite.suite_name(args.src), results)
    elif args.command == "d2l":
        results = d2l_suite.run_suite(_need(args.src, "MXLAB_D2L_SRC"), args.sections,
                                      args.all_chapters, args.timeout,
                                      progress=lambda s: print(s, flush=True), jobs=args.jobs,
                                      python=args.python)
        print(report.d2l_tables(results))
        if args.save:
            docs.save("d2l-oracle" if args.python else "d2l", results)
    else:
        if not args.no_run:
            docs.save("mxnet", mxnet_suite.run_suite(_need(args.mxnet_src, "MXLAB_MXNET_SRC"),
                                                     jobs=args.jobs), replace=True)
            docs.save("d2l", d2l_suite.run_suite(_need(args.d2l_src, "MXLAB_D2L_SRC"),
                                                 jobs=args.jobs), replace=True)
            if args.mxnet_v1_src:
                docs.save("mxnet-1.x", mxnet_suite.run_suite(args.mxnet_v1_src, jobs=args.jobs),
                          replace=True)
        if args.label:
            docs.record_history(args.label)
        print(f"wrote {docs.write()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
