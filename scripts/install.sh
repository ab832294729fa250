#!/usr/bin/env bash
# Builds fxreplay as one file with the Swift runtime linked in (--static-swift-stdlib), so the machine
# that runs it needs only Debian's FFmpeg and FreeType libraries, not a Swift toolchain, and copies
# it to PREFIX/bin (default ~/.local/bin), with its bash, zsh and fish completions beside it.
#   scripts/install.sh [PREFIX]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PREFIX="${1:-$HOME/.local}"
bash "$ROOT/scripts/install-deps.sh"
cd "$ROOT"
swift build -c release --product fxreplay --static-swift-stdlib
BIN="$(swift build -c release --show-bin-path)/fxreplay"
install -d "$PREFIX/bin" "$PREFIX/share/bash-completion/completions" "$PREFIX/share/zsh/site-functions" \
  "$PREFIX/share/fish/vendor_completions.d"
install -m 755 "$BIN" "$PREFIX/bin/fxreplay"
"$PREFIX/bin/fxreplay" --generate-completion-script bash > "$PREFIX/share/bash-completion/completions/fxreplay"
"$PREFIX/bin/fxreplay" --generate-completion-script zsh > "$PREFIX/share/zsh/site-functions/_fxreplay"
"$PREFIX/bin/fxreplay" --generate-completion-script fish > "$PREFIX/share/fish/vendor_completions.d/fxreplay.fish"
echo "installed $PREFIX/bin/fxreplay ($("$PREFIX/bin/fxreplay" --version | head -1))"
case ":$PATH:" in *":$PREFIX/bin:"*) ;; *) echo "add $PREFIX/bin to PATH: export PATH=\"$PREFIX/bin:\$PATH\"" ;; esac
