#!/usr/bin/env bash
# glimpse next to Vowpal Wabbit on the same rows and orders: see benchmarks/compare_vw.py (--help) for what it
# runs and writes (docs/results/vw_comparison.md by default).
exec /usr/bin/python3 "$(dirname "$0")/compare_vw.py" "$@"
