#!/usr/bin/env bash
# Builds fxreplay's install artefacts into dist/ from one release build (--static-swift-stdlib: the Swift
# runtime linked in, so no Swift toolchain is needed where they are installed):
#
#   scripts/package.sh deb       # dist/fxreplay_VERSION_amd64.deb for Debian 12
#   scripts/package.sh tarball   # dist/fxreplay-VERSION-linux-x86_64.tar.xz for any x86-64 Linux (kernel >= 3.2)
#   scripts/package.sh all       # both
#
# The .deb holds /usr/bin/fxreplay, its bash/zsh/fish completions, a man page made from the command's help
# by swift-argument-parser's generate-manual tool, and the README with docs/ (formats.md, the reference), copyright and changelog under
# /usr/share/doc/fxreplay (a native package: changelog.gz, as lintian wants), a lintian override for the
# libyaml copy that Yams compiles in; `Depends:` is computed: each library the binary names (NEEDED) is found with ldd,
# its package with dpkg -S, and the version from that package's shlibs file.
#
# The tarball is self-contained: bin/fxreplay, bin/ffmpeg and bin/ffprobe are one static launcher
# (packaging/launcher.c) that runs the real binaries in libexec/ through lib/ld-linux-x86-64.so.2, the
# bundled dynamic loader; lib/ holds every shared library the three binaries load (their ldd closure, no
# more), all with RPATH $ORIGIN(/../lib), so nothing comes from the host; share/fonts/DejaVuSans.ttf is the
# labels' and names' font; share/doc/fxreplay/licenses/ the copyright file of every Debian package
# copied in. TARBALL_FFMPEG=0 leaves ffmpeg and ffprobe (and the libraries only they load) out.
#
# Needs Debian 12 with the build dependencies (scripts/install-deps.sh), patchelf, gcc and libc6-dev
# for the static launcher, dpkg-dev's tools; installs the missing Debian packages itself.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-}
case "$what" in deb|tarball|all) ;; *) echo "usage: scripts/package.sh deb|tarball|all" >&2; exit 2 ;; esac

bash scripts/install-deps.sh
need=()
for tool in patchelf:patchelf gcc:gcc dpkg-deb:dpkg xz:xz-utils; do
  command -v "${tool%%:*}" >/dev/null || need+=("${tool#*:}")
done
[ -e /usr/lib/x86_64-linux-gnu/libc.a ] || need+=(libc6-dev)
if [ ${#need[@]} -gt 0 ]; then
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

swift build -c release --product fxreplay --static-swift-stdlib >&2
built="$(swift build -c release --show-bin-path)/fxreplay"
version=$("$built" --version | sed -n '1s/^fxreplay \([^ ]*\).*/\1/p')
[ -n "$version" ] || { echo "package.sh: cannot read the version from $built --version" >&2; exit 1; }
# Every date written into the artefacts is the last commit's, so the same commit gives the same bytes.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
mkdir -p dist
work=$(mktemp -d "$PWD/dist/.work.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The release binary without its symbol tables: 95 MB of which most is symbols (lintian wants it stripped).
strip --strip-unneeded --remove-section=.comment --remove-section=.note -o "$work/fxreplay" "$built"

# The Debian package that owns FILE, as ldd or the dynamic loader names it (/lib/… is /usr/lib/… on Debian 12,
# where dpkg knows some files by one name and some by the other).
owner() {
  local file=$1 candidate
  for candidate in "$file" "$(realpath "$file")" "${file#/usr}" "/usr${file#/usr}"; do
    dpkg-query -S "$candidate" 2>/dev/null | sed -n '1s/:.*//p' | grep . && return 0
  done
  echo "package.sh: no Debian package owns $file" >&2
  return 1
}

# Where ldd finds each library BINARY loads: "SONAME PATH" lines, the dynamic loader included.
libraries_of() {
  ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 } $1 ~ /^\/.*ld-linux/ { n = split($1, p, "/"); print p[n], $1 }'
}

build_deb() {
  local root="$work/deb" doc="$work/deb/usr/share/doc/fxreplay" name path package shlibs depends=()
  install -d -m 755 "$root/DEBIAN" "$root/usr/bin" "$doc" "$root/usr/share/man/man1" \
    "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
    "$root/usr/share/fish/vendor_completions.d" "$root/usr/share/lintian/overrides"
  install -m 755 "$work/fxreplay" "$root/usr/bin/fxreplay"
  # (a bash completion is sourced, not run: lintian wants no #! line)
  "$built" --generate-completion-script bash | sed '1{/^#!/d}' > "$root/usr/share/bash-completion/completions/fxreplay"
  "$built" --generate-completion-script zsh > "$root/usr/share/zsh/vendor-completions/_fxreplay"
  "$built" --generate-completion-script fish > "$root/usr/share/fish/vendor_completions.d/fxreplay.fish"
  # The man page: swift-argument-parser's generate-manual tool, the one its `generate-manual` package plugin
  # runs, run directly on the release binary (the plugin would build every product again, in another way).
  local parser=.build/checkouts/swift-argument-parser
  swift build --package-path "$parser" --scratch-path .build/generate-manual --product generate-manual >&2
  "$(swift build --package-path "$parser" --scratch-path .build/generate-manual --show-bin-path)/generate-manual" \
    "$built" --date "$(date -u -d "@$SOURCE_DATE_EPOCH" +%F)" --section 1 --output-directory "$work"
  gzip -9n < "$work/fxreplay.1" > "$root/usr/share/man/man1/fxreplay.1.gz"
  install -m 644 README.md "$doc/README.md"
  # docs/ beside the README, so its links (formats.md, the reference pages, pictures) resolve.
  install -D -m 644 -t "$doc/docs" docs/*.md docs/*.png
  sed "s/@YEAR@/$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y)/" packaging/copyright > "$doc/copyright"
  { echo "fxreplay ($version) unstable; urgency=medium"; echo
    echo "  * Built from commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown) by scripts/package.sh."; echo
    echo " -- fxreplay maintainers <fxreplay@users.noreply.github.com>  $(date -u -R -d "@$SOURCE_DATE_EPOCH")"
  } | gzip -9n > "$doc/changelog.gz"
  install -m 644 packaging/lintian-overrides "$root/usr/share/lintian/overrides/fxreplay"
  # Depends: the package of each library the binary itself names, at the version its shlibs file asks for.
  while read -r name path; do
    readelf -d "$work/fxreplay" | grep -q "(NEEDED).*\[$name\]" || continue
    package=$(owner "$path")
    shlibs=$({ cat "/var/lib/dpkg/info/$package.shlibs" "/var/lib/dpkg/info/$package:amd64.shlibs" 2>/dev/null || true; } \
      | awk -v lib="${name%%.so*}" -v v="${name##*.so.}" '$1 == lib && $2 == v { $1 = ""; $2 = ""; sub(/^ +/, ""); print; exit }')
    depends+=("${shlibs:-$package}")
  done < <(libraries_of "$work/fxreplay")
  depends+=(fonts-dejavu-core)
  local installed_size
  installed_size=$(du -sk --apparent-size "$root/usr" | cut -f1)
  sed -e "s/@VERSION@/$version/" -e "s/@INSTALLED_SIZE@/$installed_size/" \
      -e "s/@DEPENDS@/$(printf '%s\n' "${depends[@]}" | sort -u | paste -sd, | sed 's/,/, /g')/" \
      packaging/control > "$root/DEBIAN/control"
  (cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum > DEBIAN/md5sums)
  chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
  find "$root" -type d -exec chmod 755 {} +
  find "$root/usr" -type f ! -path '*/usr/bin/*' -exec chmod 644 {} +
  find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
  dpkg-deb --root-owner-group -Zxz --build "$root" "dist/fxreplay_${version}_amd64.deb" >&2
  echo "dist/fxreplay_${version}_amd64.deb ($(du -h "dist/fxreplay_${version}_amd64.deb" | cut -f1); Depends: $(sed -n 's/^Depends: //p' "$root/DEBIAN/control"))"
}

build_tarball() {
  local name="fxreplay-$version-linux-x86_64" soname path package program
  local root="$work/$name" programs=(fxreplay)
  [ "${TARBALL_FFMPEG:-1}" = 0 ] || programs+=(ffmpeg ffprobe)
  install -d "$root/bin" "$root/libexec" "$root/lib" "$root/share/fonts" "$root/share/doc/fxreplay/licenses"
  install -m 755 "$work/fxreplay" "$root/libexec/fxreplay"
  for program in "${programs[@]}"; do
    [ "$program" = fxreplay ] || install -m 755 "/usr/bin/$program" "$root/libexec/$program"
  done
  # Every library the programs load, found as the system's loader finds it, flattened into lib/.
  declare -A packages=()
  for program in "${programs[@]}"; do
    path="$work/fxreplay"
    if [ "$program" != fxreplay ]; then path="/usr/bin/$program"; packages[$(owner "$path")]=1; fi
    while read -r soname path; do
      [ -e "$root/lib/$soname" ] && continue
      cp -L "$path" "$root/lib/$soname"
      chmod 644 "$root/lib/$soname"
      packages[$(owner "$path")]=1
    done < <(libraries_of "$path")
  done
  chmod 755 "$root/lib/ld-linux-x86-64.so.2"
  # Each library looks for its own dependencies beside itself, each program in ../lib; an RPATH (not a
  # RUNPATH) is searched before LD_LIBRARY_PATH, so a host's setting cannot pull its libraries in.
  for path in "$root"/lib/*; do
    case "${path##*/}" in ld-linux-x86-64.so.2|libc.so.6) continue ;; esac
    patchelf --force-rpath --set-rpath '$ORIGIN' "$path"
  done
  for program in "${programs[@]}"; do
    patchelf --force-rpath --set-rpath '$ORIGIN/../lib' "$root/libexec/$program"
  done
  gcc -static -O2 -Wall -Wextra -Werror -o "$root/bin/fxreplay" packaging/launcher.c
  strip "$root/bin/fxreplay"
  for program in "${programs[@]}"; do
    [ "$program" = fxreplay ] || ln "$root/bin/fxreplay" "$root/bin/$program"
  done
  install -m 644 /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf "$root/share/fonts/DejaVuSans.ttf"
  packages[fonts-dejavu-core]=1
  install -m 644 README.md "$root/share/doc/fxreplay/README.md"
  install -D -m 644 -t "$root/share/doc/fxreplay/docs" docs/*.md docs/*.png
  install -m 644 packaging/copyright "$root/share/doc/fxreplay/copyright"
  sed -i "s/@YEAR@/$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y)/" "$root/share/doc/fxreplay/copyright"
  for package in "${!packages[@]}"; do
    [ "$package" = fxreplay ] && continue
    install -m 644 "/usr/share/doc/${package%%:*}/copyright" "$root/share/doc/fxreplay/licenses/${package%%:*}"
  done
  find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
  tar -C "$work" --sort=name --owner=0 --group=0 --numeric-owner -cf - "$name" | xz -6 -T2 > "dist/$name.tar.xz"
  echo "dist/$name.tar.xz ($(du -h "dist/$name.tar.xz" | cut -f1) compressed, $(du -sh "$root" | cut -f1) unpacked: ${programs[*]}, $(ls "$root/lib" | wc -l) libraries)"
}

case "$what" in
  deb) build_deb ;;
  tarball) build_tarball ;;
  all) build_deb; build_tarball ;;
esac
