#!/usr/bin/env bash
# Installs what the tests need, then runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift build --build-tests
swift test --skip-build "$@"
