#!/usr/bin/env bash
# The Drake corpus (bench/corpus/RESULTS.md): every .sdf and .urdf file of the drake wheel's
# share/drake tree and, when given, of a copy of the drake_models package, tried with Drake's
# parser (drake_parse.py) and with `isobar run FILE --steps 5 --worlds 1 --quiet`.
#   bash bench/corpus/run.sh ISOBAR_BINARY PYTHON_WITH_PYDRAKE [DRAKE_MODELS_DIR] > results.tsv
# PYTHON_WITH_PYDRAKE: e.g. VENV/bin/python after
#   python3 -m venv VENV && VENV/bin/pip install drake==1.51.1   (VENV: any folder)
# DRAKE_MODELS_DIR: a checkout of github.com/RobotLocomotion/models (Drake's package
# "drake_models", which Drake downloads on demand and isobar does not); isobar finds it through
# ISOBAR_PACKAGE_PATH=DIR (its package.xml names it), Drake through its package map.
# Output, one line per file, tab-separated:
#   file  needs_drake_models(yes|no)  drake(ok|fail)  isobar(ok|fail)  isobar's message
# Paths are printed relative to share/drake ("drake/...") or to the models ("drake_models/...").
# Then summarize.py turns it into the tables of RESULTS.md.
set -uo pipefail
isobar=${1:?usage: run.sh ISOBAR PYTHON [DRAKE_MODELS_DIR]}
py=${2:?usage: run.sh ISOBAR PYTHON [DRAKE_MODELS_DIR]}
models=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
share=$("$py" -c 'import os, pydrake; print(os.path.join(os.path.dirname(pydrake.__file__), "share", "drake"))')
files=$( { find "$share" -name '*.sdf' -o -name '*.urdf'; [[ -n $models ]] && find "$models" -name '*.sdf' -o -name '*.urdf'; } | LC_ALL=C sort)
dm_args=()
if [[ -n $models ]]; then
  dm_args=(--drake-models "$models")
fi
declare -A drake
while IFS=$'\t' read -r f ok msg; do drake[$f]=$ok; done < <("$py" "$here/drake_parse.py" "${dm_args[@]}" $files 2>/dev/null)
for f in $files; do
  rel=${f#"$share"/}; [[ $rel == "$f" ]] || rel="drake/$rel"
  [[ -n $models ]] && { r2=${f#"$models"/}; [[ $r2 == "$f" ]] || rel="drake_models/$r2"; }
  needs=no
  grep -q 'package://drake_models\|model://drake_models' "$f" && needs=yes
  [[ $rel == drake_models/* ]] && needs=yes
  out=$(ISOBAR_PACKAGE_PATH="$models" timeout 120 "$isobar" run "$f" --steps 5 --worlds 1 --quiet --backend cpu 2>&1)
  rc=$?
  # A scene with more contacts than the default capacity: again with the count the tool names.
  need=$(printf '%s' "$out" | sed -n 's/.*rerun with --max-contacts \([0-9]*\).*/\1/p' | head -n 1)
  if ((rc != 0)) && [[ -n $need ]]; then
    out=$(ISOBAR_PACKAGE_PATH="$models" timeout 120 "$isobar" run "$f" --steps 5 --worlds 1 --quiet --backend cpu \
      --max-contacts "$need" 2>&1)
    rc=$?
  fi
  if ((rc == 0)); then iso=ok; msg=""; else iso=fail; msg=$(printf '%s' "$out" | grep -v '^{' | tail -n 1 | tr '\t' ' '); fi
  msg=${msg//"$share"\//drake/}
  [[ -n $models ]] && msg=${msg//"$models"\//drake_models/}
  printf '%s\t%s\t%s\t%s\t%s\n' "$rel" "$needs" "${drake[$f]:-fail}" "$iso" "$msg"
done
