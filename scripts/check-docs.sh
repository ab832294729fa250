#!/usr/bin/env bash
# Lists ReplayKitless's public declarations that have no `///` doc comment (issue #26 item 11: every
# public symbol documented, for the DocC catalogue in Sources/ReplayKitless/ReplayKitless.docc).
# Protocol witnesses (description, Codable, Equatable, rawValue) take their documentation from the
# protocol and are not listed. Then the reference pages' checkable facts (issue #36 item 8): every
# InputLimits constant in docs/limits.md with its value, docs/exit-codes.md against formats.md §8, and
# every relative link of README.md and docs/ resolving. Exit 1 when any check fails. Reads the sources
# only: no build needed (docs/commands.md, generated from the binary, is checked by
# scripts/gen-command-docs.sh --check and the ReferenceDocsTests suite).
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
python3 - "$@" <<'PY' || status=1
import glob, re, sys
witness = re.compile(r'\b(description\b|errorDescription\b|encode\(to\b|init\(from decoder\b|hash\(into\b|static func == |rawValue\b)')
missing = []
for path in sorted(glob.glob('Sources/ReplayKitless/**/*.swift', recursive=True)):
    lines = open(path, encoding='utf-8').read().split('\n')
    for number, line in enumerate(lines):
        text = line.strip()
        if not re.match(r'(@\w+(\([^)]*\))?\s+)*public\b', text) or text.startswith('public extension'):
            continue
        above = number - 1
        while above >= 0 and lines[above].strip().startswith('@'):
            above -= 1
        if above >= 0 and (lines[above].strip().startswith('///') or lines[above].strip().endswith('*/')):
            continue
        if witness.search(text):
            continue
        missing.append(f'{path}:{number + 1}: {text[:120]}')
print('\n'.join(missing))
print(f'{len(missing)} public declarations without a doc comment', file=sys.stderr)
sys.exit(1 if missing else 0)
PY
python3 scripts/check-reference-docs.py || status=1
exit "$status"
