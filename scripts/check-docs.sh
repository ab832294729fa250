#!/usr/bin/env bash
# Lists ReplayKitless's public declarations that have no `///` doc comment (issue #26 item 11: every
# public symbol documented, for the DocC catalogue in Sources/ReplayKitless/ReplayKitless.docc).
# Protocol witnesses (description, Codable, Equatable, rawValue) take their documentation from the
# protocol and are not listed. Exit 1 when any is found. Reads the sources only: no build needed.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 - "$@" <<'PY'
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
