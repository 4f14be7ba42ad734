#!/usr/bin/env bash
# Moves one call's carried part of the packed model to /tmp/stage on the
# device machine (kept there while the machine stays warm) and unpacks its
# xz files; lists what is staged so far.
set -eu
mkdir -p /tmp/stage
cp "$1"/* /tmp/stage/
(cd /tmp/stage && for f in *.xz; do [[ -e $f ]] && xz -d -T16 -f "$f"; done)
ls -la /tmp/stage
