"""glimpse reproduce: runs a paper's protocols and writes its results page, and the page's ledger, from the trace
files (docs/reproducing.md). `glimpse reproduce` runs `python3 -m glimpse.reproduce`; the modules:

  common      errors, JSON files, hashes
  papers      protocols/PAPER/paper.json: tables, claims, figures, the --quick forms of the protocols
  inputs      a page's fingerprint: everything that can move one of its numbers, and what changed since
  running     the sweeps (glimpse run), resumed or started afresh when their inputs changed
  cells       a table cell's two selections (same trials, held out) through the core's selection (glimpse select)
  ledger      the cells' per-trial values and runs beside the page (PAPER.cells.csv)
  verify      reruns the runs behind a sample of the ledger's cells and compares them bit for bit
  claims      the paper's computable statements, each a direction and a test at the page's level
  ratios      selective sampling: regret ratios to the passive learner
  figures     the page's figures
  page        the page itself: tables, claims, explanations, the count line, the fingerprint
"""
