#!/usr/bin/env bash
# Every committed results page with a ledger: a sample of its cells rerun by `glimpse reproduce PAPER --verify`
# (the runs behind each chosen cell, with `glimpse run --only`) gives the ledger's values bit for bit, on whatever
# x86-64 machine runs this suite. The sample is drawn anew each time (its seed is printed: rerun it with --seed) and
# kept to cells whose runs took GLIMPSE_VERIFY_SECONDS (default 20) of recorded time, so all pages take minutes.
# A page another program writes (a paper.json with a "generator") is verified the same way when that program keeps a
# ledger ("ledger": true: bakeoff and vw_comparison, whose programs rerun glimpse's cells here, VW's only where vw is
# installed). A build other than the reference arithmetic cannot reproduce the bits: skipped (77).
set -euo pipefail
source "$(dirname "$0")/common.sh"
/usr/bin/python3 -c "import json, sys; sys.exit(0 if json.loads(sys.argv[1])['reference'] else 1)" \
  "$("$GLIMPSE" --version --json)" || { echo "not the reference build: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
verified=0
for ledger in "$SOURCE_DIR"/docs/results/*.cells.csv; do
  [ -e "$ledger" ] || break  # no ledger at all: said below
  paper=$(basename "$ledger" .cells.csv)
  seed=${GLIMPSE_VERIFY_SEED:-$((RANDOM * 32768 + RANDOM))}
  if ! "$GLIMPSE" reproduce "$paper" --root "$SOURCE_DIR" --verify --sample "${GLIMPSE_VERIFY_CELLS:-3}" \
      --seed "$seed" --max-seconds "${GLIMPSE_VERIFY_SECONDS:-20}" -j 2 > "$work/$paper.txt" 2> "$work/$paper.err"; then
    cat "$work/$paper.txt" "$work/$paper.err"
    fail "$paper (rerun: glimpse reproduce $paper --verify --seed $seed ...)"
  fi
  if grep -q '"generator"' "$SOURCE_DIR/protocols/$paper/paper.json"; then
    grep -q "equal to the ledger bit for bit" "$work/$paper.err" || { cat "$work/$paper.err"; fail "$paper"; }
    echo "$paper: $(grep -o 'all [0-9]* equal to the ledger bit for bit' "$work/$paper.err") (--seed $seed)"
  else
    echo "$paper: $(grep -c '^ok ' "$work/$paper.txt") cells identical to the ledger (--seed $seed)"
  fi
  verified=$((verified + 1))
done
# Every generated paper page has its ledger (the pages awaiting regeneration, docs/reproducing.md, have neither), and
# so does every generator page whose program keeps one.
pages=0
for page in "$SOURCE_DIR"/docs/results/*.md; do
  spec="$SOURCE_DIR/protocols/$(basename "$page" .md)/paper.json"
  if ! grep -q '"generator"' "$spec" || grep -q '"ledger": true' "$spec"; then pages=$((pages + 1)); fi
done
[ "$verified" -ge 3 ] && [ "$verified" = "$pages" ] || fail "$verified ledgers for $pages paper pages"
echo "1 passed, 0 failed"
