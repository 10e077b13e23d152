#!/usr/bin/env python3
"""The catalog's table in docs/datasets.md, generated from datasets/catalog.json (name, size, source package and
files, description, and the checksum `glimpse datasets install` verifies) and datasets/openml.json (the OpenML data
id of a dataset that is the same data, and how its rows differ).

    tools/datasets_table.py           # rewrites the table in docs/datasets.md
    tools/datasets_table.py --check   # exits 1, naming the first differing row, when the page is out of step
"""
import json
import os
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
catalog_path = os.path.join(root, "datasets", "catalog.json")
openml_path = os.path.join(root, "datasets", "openml.json")
page_path = os.path.join(root, "docs", "datasets.md")
header = ["| name | n | d | K | from | notes | checksum |", "|---|---|---|---|---|---|---|"]


def row(entry, openml):
    files = ", ".join(os.path.basename(f) for f in entry["files"])
    rows = entry.get("rows")
    where = f"rows {rows[0]}-{rows[1]}" if rows else "all rows"
    notes = entry["description"] + ("; " + entry["note"] if entry.get("note") else "")
    if entry["name"] in openml:
        same = openml[entry["name"]]
        notes += f"; OpenML {same['id']}" + (f" ({same['differs']})" if same.get("differs") else "")
    expect = entry["expect"]
    return (f"| `{entry['name']}` | {expect['n']:,} | {expect['d']} | {expect['K']} | {entry['package']} "
            f"({entry['package_version']}): {files}, {where} | {notes} | `{expect['checksum']}` |")


def main():
    with open(openml_path) as f:
        openml = json.load(f)["datasets"]
    with open(catalog_path) as f:
        table = header + [row(e, openml) for e in json.load(f)["datasets"]]
    with open(page_path) as f:
        lines = f.read().split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("| name | n | d | K | from | notes"))
    end = start + 2
    while end < len(lines) and lines[end].startswith("| `"):
        end += 1
    if "--check" in sys.argv[1:]:
        for have, want in zip(lines[start:end] + [""] * len(table), table):
            if have != want:
                sys.exit(f"{page_path}: the datasets table is out of step with {catalog_path}; run "
                         f"tools/datasets_table.py\n  page:    {have}\n  catalog: {want}")
        if end - start != len(table):
            sys.exit(f"{page_path}: the datasets table has {end - start - 2} rows, the catalog {len(table) - 2}")
        return
    with open(page_path, "w") as f:
        f.write("\n".join(lines[:start] + table + lines[end:]))


main()
