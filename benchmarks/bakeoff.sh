#!/usr/bin/env bash
# The contextual-bandit bake-off: glimpse's bandit learners and Vowpal Wabbit's exploration methods on the same rows
# and orders, ranked; see benchmarks/bakeoff.py (--help) for what it runs and writes.
exec /usr/bin/python3 "$(dirname "$0")/bakeoff.py" "$@"
