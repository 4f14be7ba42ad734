#!/usr/bin/env bash
# The table of run.sh: for each net of RUNS (runs.tsv), the oracle of
# ORACLES against its plain and tree runs, bytes a state, memory and the
# time ratio tree/plain, as Markdown on stdout.
#
# Usage: table.sh RUNS ORACLES
set -euo pipefail
runs="$1" oracles="$2"
echo "| model | words | oracle states | plain states | tree states | exact | plain s | tree s | tree/plain time | plain B/state | tree B/state | plain MiB | tree MiB |"
echo "| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
awk -F'\t' -v oracles="$oracles" '
    BEGIN { while ((getline line < oracles) > 0) { split(line, f, "\t"); expect[f[1]] = f[2] "\t" f[3] } }
    NR == 1 { next }
    { key = $1; if (!(key in seen)) { seen[key] = 1; name[++n] = key }
      row[key, $2] = $0 }
    function fixed(x, digits) { return (x > 0) ? sprintf("%." digits "f", x) : "-" }
    END {
      for (i = 1; i <= n; i++) {
        m = name[i]; split(expect[m], e, "\t")
        split(row[m, "plain"], p, "\t"); split(row[m, "tree"], t, "\t")
        exact = (p[5] == e[1] && t[5] == e[1] && p[6] == e[2] && t[6] == e[2]) ? "yes" : "no"
        if (p[4] != "complete" || t[4] != "complete") exact = "incomplete (exit " p[3] "/" t[3] ")"
        ratio = (p[8] > 0 && t[8] > 0) ? sprintf("%.2f", t[8] / p[8]) : "-"
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", m, (p[7] != "-" ? p[7] : t[7]), e[1], p[5], t[5], exact, fixed(p[8], 3), fixed(t[8], 3), ratio, fixed(p[9], 2), fixed(t[9], 2), fixed(p[10] / 1048576, 1), fixed(t[10] / 1048576, 1)
      }
    }' "$runs"
