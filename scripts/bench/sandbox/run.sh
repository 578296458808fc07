#!/usr/bin/env bash
# Sandbox figures (issue 22): jailed `bash true` vs unjailed, confined
# extension spawn vs unconfined, proxy overhead and memory.
# Usage: scripts/bench/sandbox/run.sh   (release build, one job)
set -euo pipefail
cd "$(dirname "$0")/../../.."
export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-1}"
cargo bench -q -p zut-tools --bench jail
cargo bench -q -p zut-process --bench spawn
cargo bench -q -p zut-sandbox --bench proxy
