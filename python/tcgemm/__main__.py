"""`python -m tcgemm`: self-check every runnable kernel, then a short benchmark
against cuBLAS. `python -m tcgemm bench ...` runs the full benchmark harness."""
import sys

from . import bench


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "bench":
        return bench.main(argv[1:])
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    return bench.selfcheck_and_table()


if __name__ == "__main__":
    sys.exit(main())
