#!/usr/bin/env bash
# The install artefacts proven on machines without Swift (issue #35); CI runs it after the test suite.
#   1. scripts/package.sh all: the .deb and the tarball from one release build; lintian finds no error in the .deb.
#   2. The .deb: a fresh Debian 12 root (mmdebstrap --variant=apt, from Debian's packages), `apt-get install
#      ./fxreplay_*.deb` in it under chroot, then the README's check (fxreplay sample, render) there; LD_DEBUG=libs
#      shows every library loaded from that root's system folders.
#   3. The tarball: unpacked into a root holding nothing else (its folder at /opt/fxreplay, the sample call
#      archive, empty /proc, /dev and /tmp with /proc and /dev mounted), run under chroot: --version names the
#      bundled build; sample, render (labels: the bundled font), probe of Samples/call-archive.zip, a batch (its
#      child runs through the launcher again), one render per codec the CLI offers read back by the bundled
#      ffprobe, ffmpeg decoding; LD_DEBUG=libs shows every library from the tarball's lib/, and every library
#      there loaded by some command (nothing carried that nothing loads). Then on this machine, moved to another
#      folder and with LD_LIBRARY_PATH pointing at the system's FFmpeg: still only the tarball's libraries.
# Each check prints PASS/FAIL; the last line is "package-check: N passed, N failed" and the exit status is 1 when
# any failed. The roots live in one temporary folder for the run (PACKAGE_CHECK_WORK to keep them), unmounted and
# removed on every exit. Needs root (chroot, mount) and Debian's mirror.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
missing=()
for tool in mmdebstrap:mmdebstrap lintian:lintian; do command -v "${tool%%:*}" >/dev/null || missing+=("${tool#*:}"); done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# PACKAGE_CHECK_BUILT=1 checks the artefacts already in dist/ (made from this commit) instead of building them.
[ "${PACKAGE_CHECK_BUILT:-}" = 1 ] || bash scripts/package.sh all
version=$("$(swift build -c release --show-bin-path)/fxreplay" --version | sed -n '1s/^fxreplay \([^ ]*\).*/\1/p')
deb="$PWD/dist/fxreplay_${version}_amd64.deb"
tarball="$PWD/dist/fxreplay-$version-linux-x86_64.tar.xz"
built=$SECONDS

work=${PACKAGE_CHECK_WORK:-}
[ -n "$work" ] || work=$(mktemp -d /tmp/fxreplay-package-check.XXXXXX)
mkdir -p "$work"
work=$(realpath "$work")
mounts=()
cleanup() {
  local i clean=1
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount "${mounts[i]}" || umount -l "${mounts[i]}" || clean=0; done
  # Never remove a root whose /dev is still the machine's.
  if [ "$clean" = 1 ] && [ -z "${PACKAGE_CHECK_WORK:-}" ]; then rm -rf --one-file-system "$work"; fi
}
trap cleanup EXIT
# /proc (the launcher and batch read /proc/self/exe) and /dev (/dev/null, /dev/urandom) inside ROOT.
mount_into() {
  local root=$1
  mkdir -p "$root/proc" "$root/dev" "$root/tmp"
  chmod 1777 "$root/tmp"
  mount -t proc proc "$root/proc" && mounts+=("$root/proc")
  mount --bind /dev "$root/dev" && mounts+=("$root/dev")
}

passed=0
failed=0
mark=$SECONDS
# The time since the last stage, to see where the run's minutes go.
stage() { echo "($1: $((SECONDS - mark)) s)"; mark=$SECONDS; }
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
# check NAME COMMAND…: PASS when the command succeeds, else FAIL with its last lines of output.
check() {
  local name=$1 output
  shift
  if output=$("$@" 2>&1); then pass "$name"; else fail "$name"; tail -n 15 <<<"$output" | sed 's/^/    /'; fi
}
# The libraries the commands loaded, from LD_DEBUG=libs output in FILES (one per process); the tarball's programs
# name theirs as …/libexec/../lib/NAME (their RPATH, $ORIGIN/../lib).
loaded_libraries() { sed -n 's|/libexec/\.\./lib/|/lib/|; s/^ *[0-9]*:[[:space:]]*calling init: //p' "$@" | sort -u; }

# 1. lintian
lintian_output=$(lintian --fail-on error "$deb" 2>&1) && pass "lintian: no error in ${deb##*/}" || fail "lintian: ${deb##*/}"
grep -E '^[EW]: ' <<<"$lintian_output" | sed 's/^/    /' || true

stage lintian
# 2. The .deb in a fresh Debian 12 root
debian="$work/debian"
sources=/etc/apt/sources.list.d/debian.sources
[ -f "$sources" ] || sources="deb http://deb.debian.org/debian bookworm main"
if [ ! -x "$debian/usr/bin/apt-get" ]; then
  mmdebstrap --quiet --variant=apt --skip=cleanup/apt/lists bookworm "$debian" "$sources"
fi
stage "Debian root"
mount_into "$debian"
cp /etc/resolv.conf "$debian/etc/resolv.conf"
cp "$deb" "$debian/tmp/"
in_debian() { chroot "$debian" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root DEBIAN_FRONTEND=noninteractive "$@"; }
check "deb: apt-get install ./${deb##*/} in a fresh Debian 12 root" \
  in_debian sh -c "cd /tmp && apt-get install -y -q --no-install-recommends ./${deb##*/}"
stage "apt-get install"
check "deb: no Swift toolchain in the root" in_debian sh -c '! command -v swift && ! ls /usr/lib/swift /opt/swift'
check "deb: man page, completions, README, docs and copyright installed" in_debian sh -c \
  'test -s /usr/share/man/man1/fxreplay.1.gz && test -s /usr/share/bash-completion/completions/fxreplay &&
   test -s /usr/share/zsh/vendor-completions/_fxreplay && test -s /usr/share/fish/vendor_completions.d/fxreplay.fish &&
   test -s /usr/share/doc/fxreplay/README.md && test -s /usr/share/doc/fxreplay/docs/commands.md && test -s /usr/share/doc/fxreplay/copyright'
check "deb: fxreplay --version is the plain build" in_debian sh -c \
  "fxreplay --version | head -1 | grep -qx 'fxreplay $version'"
check "deb: fxreplay sample -o demo && fxreplay render (README check) with LD_DEBUG=libs" in_debian sh -c \
  'cd /root && fxreplay sample -o demo && LD_DEBUG=libs LD_DEBUG_OUTPUT=/tmp/deb-ld fxreplay render --job demo/job.yaml demo/call.mp4 -o demo/rendered.mp4 &&
   fxreplay probe demo/rendered.mp4 | grep -q "video h264"'
libraries=$(loaded_libraries "$debian"/tmp/deb-ld.* 2>/dev/null || true)
outside=$(grep -Ev '^/(usr/)?lib/x86_64-linux-gnu/[^/]+$|^/lib64/ld-linux-x86-64\.so\.2$' <<<"$libraries" || true)
if [ "$(wc -l <<<"$libraries")" -gt 20 ] && [ -z "$outside" ]; then
  pass "deb: all $(wc -l <<<"$libraries") libraries render loaded come from the root's /usr/lib/x86_64-linux-gnu"
else
  fail "deb: libraries from elsewhere (or too few seen): ${outside:-$(wc -l <<<"$libraries") libraries}"
fi

stage "deb checks"
# 3. The tarball in a root holding nothing else
bundle="$work/bundle"
mkdir -p "$bundle/opt" "$bundle/work"
tar -xJf "$tarball" -C "$bundle/opt"
mv "$bundle/opt/fxreplay-$version-linux-x86_64" "$bundle/opt/fxreplay"
cp Samples/call-archive.zip "$bundle/work/"
mount_into "$bundle"
check "tarball: the root holds only opt/fxreplay, work, proc, dev and tmp" \
  test "$(ls "$bundle" | paste -sd' ')" = "dev opt proc tmp work"
in_bundle() { chroot "$bundle" /opt/fxreplay/bin/fxreplay "$@"; }
check "tarball: --version names the bundled build" sh -c \
  "chroot '$bundle' /opt/fxreplay/bin/fxreplay --version | head -1 | grep -qx 'fxreplay $version (bundled build, /opt/fxreplay)'"
check "tarball: fxreplay sample -o /work/demo" in_bundle sample -o /work/demo
check "tarball: render the sample (labels in the bundled font) with LD_DEBUG=libs" \
  env LD_DEBUG=libs LD_DEBUG_OUTPUT=/tmp/ld-render chroot "$bundle" /opt/fxreplay/bin/fxreplay render \
  --job /work/demo/job.yaml /work/demo/call.mp4 -o /work/demo/rendered.mp4 --preview /work/demo/preview.png
check "tarball: probe the call archive" sh -c \
  "chroot '$bundle' /opt/fxreplay/bin/fxreplay probe /work/call-archive.zip | grep -q ."
check "tarball: batch (its child runs through the launcher)" in_bundle batch /work/demo/call.mp4 --out /work/batch -j 1
check "tarball: batch wrote its output" test -s "$bundle/work/batch/call.mp4"
check "tarball: fxreplay sample -o /work/tiny --seconds 1 --size 128x72" in_bundle sample -o /work/tiny --seconds 1 --size 128x72
for pair in h264:mp4 hevc:mp4 vp9:webm vp8:webm prores:mov ffv1:mkv; do
  codec=${pair%%:*}
  check "tarball: render --codec $codec, read back by the bundled ffprobe" sh -c \
    "chroot '$bundle' /opt/fxreplay/bin/fxreplay render /work/tiny/call.mp4 --codec $codec -o /work/tiny/out-$codec.${pair#*:} &&
     env LD_DEBUG=libs LD_DEBUG_OUTPUT=/tmp/ld-ffprobe-$codec chroot '$bundle' /opt/fxreplay/bin/ffprobe -v error -select_streams v:0 \
       -show_entries stream=codec_name -of csv=p=0 /work/tiny/out-$codec.${pair#*:} | grep -qx $codec"
done
check "tarball: ffmpeg decodes the render" env LD_DEBUG=libs LD_DEBUG_OUTPUT=/tmp/ld-ffmpeg \
  chroot "$bundle" /opt/fxreplay/bin/ffmpeg -v error -i /work/demo/rendered.mp4 -f null -
libraries=$(loaded_libraries "$bundle"/tmp/ld-* 2>/dev/null || true)
outside=$(grep -Ev '^/opt/fxreplay/lib/[^/]+$' <<<"$libraries" || true)
[ "$(wc -l <<<"$libraries")" -gt 20 ] && [ -z "$outside" ] \
  && pass "tarball: all $(wc -l <<<"$libraries") libraries loaded come from /opt/fxreplay/lib" \
  || fail "tarball: libraries from elsewhere (or too few seen): ${outside:-$(wc -l <<<"$libraries") libraries}"
unused=$(comm -23 <(ls "$bundle/opt/fxreplay/lib" | grep -vx 'ld-linux-x86-64.so.2' | sort) \
                  <(sed 's|.*/||' <<<"$libraries" | sort -u))
[ -z "$unused" ] && pass "tarball: every library in lib/ is loaded by a command" \
  || fail "tarball: carried but never loaded: $(paste -sd' ' <<<"$unused")"

stage "tarball checks"
# The same tarball on this machine, in another folder, with LD_LIBRARY_PATH naming the system's FFmpeg.
moved="$work/elsewhere/apps"
mkdir -p "$moved"
cp -a "$bundle/opt/fxreplay" "$moved/fx"
rm -f "$work"/host-ld.*
check "tarball: moved to another folder on this machine, --version names it" sh -c \
  "cd / && '$moved/fx/bin/fxreplay' --version | head -1 | grep -qx 'fxreplay $version (bundled build, $moved/fx)'"
check "tarball: render there with LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu" env LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu \
  LD_DEBUG=libs LD_DEBUG_OUTPUT="$work/host-ld" "$moved/fx/bin/fxreplay" render "$bundle/work/tiny/call.mp4" -o "$work/host.mp4"
libraries=$(loaded_libraries "$work"/host-ld.* 2>/dev/null || true)
outside=$(grep -Ev "^$moved/fx/lib/[^/]+\$" <<<"$libraries" || true)
[ "$(wc -l <<<"$libraries")" -gt 20 ] && [ -z "$outside" ] \
  && pass "tarball: on this machine too, all $(wc -l <<<"$libraries") libraries come from its lib/" \
  || fail "tarball: on this machine, libraries from elsewhere: ${outside:-$(wc -l <<<"$libraries") libraries}"

stage "tarball on this machine"
echo "package-check: $((built - start)) s to build both artefacts, $((SECONDS - built)) s for the roots and checks"
echo "package-check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
