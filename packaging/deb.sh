#!/usr/bin/env bash
# Builds pushhost's Debian packages from a staged install, with Debian's own
# tools: dpkg-shlibdeps computes each package's Depends from the libraries
# its files link, dpkg-deb builds it. Run by `make deb`:
#
#     packaging/deb.sh STAGE TRANSPORTS OUT
#
# STAGE: `make install DESTDIR=STAGE PREFIX=/usr`; TRANSPORTS: the folder of
# the built transport plugins; OUT: where the .deb files go.
set -euo pipefail
stage=$(realpath "$1")
transports=$(realpath "$2")
out=$3
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(realpath "$out")

# The version the binary prints (the stage's runtime beside it).
version=$("$stage/usr/bin/pushhost" --version)
arch=$(dpkg --print-architecture)
maintainer="pushhost maintainers <maintainers@pushhost.invalid>"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# dpkg-shlibdeps reads debian/control: one stanza per package.
mkdir -p "$work/src/debian"
{
    printf 'Source: pushhost\nMaintainer: %s\n' "$maintainer"
    for package in pushhost pushhost-dev pushhost-samples pushhost-desktop pushhost-unifiedpush pushhost-nats; do
        printf '\nPackage: %s\nArchitecture: any\n' "$package"
    done
} > "$work/src/debian/control"

# move PACKAGE PATH...: the staged paths into the package's tree.
move() {
    local package=$1
    shift
    for path in "$@"; do
        mkdir -p "$work/$package/$(dirname "$path")"
        mv "$stage/$path" "$work/$package/$path"
    done
}

# docs PACKAGE: its copyright file and its (native) changelog.
docs() {
    local folder="$work/$1/usr/share/doc/$1"
    mkdir -p "$folder"
    {
        printf 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n'
        printf 'Upstream-Name: pushhost\n\nFiles: *\nCopyright: 2026 pushhost maintainers\nLicense: Apache-2.0\n'
        printf ' On Debian systems, the full text of the Apache License 2.0 is in\n'
        printf ' /usr/share/common-licenses/Apache-2.0.\n'
    } > "$folder/copyright"
    printf '%s (%s) unstable; urgency=medium\n\n  * Version %s; see CHANGELOG.md of the pushhost repository.\n\n -- %s  %s\n' \
        "$1" "$version" "$version" "$maintainer" "$(date -R -d @"${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)}")" \
        | gzip -9n > "$folder/changelog.gz"
}

# build PACKAGE SECTION DEPENDS-BEYOND SUMMARY DESCRIPTION: the control file
# (Depends from dpkg-shlibdeps over its ELF files, with what the tools cannot
# see), md5sums, and the .deb.
build() {
    local package=$1 section=$2 extra=$3 summary=$4 description=$5
    local tree="$work/$package"
    docs "$package"
    mkdir -p "$tree/DEBIAN"
    local elves depends=""
    elves=$(find "$tree/usr" -type f \( -name '*.so' -o -perm -u+x \) -exec sh -c 'head -c 4 "$1" | grep -q ELF' sh {} \; -print | sort)
    if [ -n "$elves" ]; then
        # The private Swift runtime, in pushhost's tree, satisfies what links it.
        depends=$(cd "$work/src" && dpkg-shlibdeps -O -l"$work/pushhost/usr/lib/pushhost/swift" $elves 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
    fi
    [ -n "$extra" ] && depends=${depends:+$depends, }$extra
    {
        printf 'Package: %s\nVersion: %s\nArchitecture: %s\nMaintainer: %s\n' "$package" "$version" "$arch" "$maintainer"
        printf 'Installed-Size: %s\nSection: %s\nPriority: optional\n' "$(du -sk --exclude=DEBIAN "$tree" | cut -f1)" "$section"
        [ -n "$depends" ] && printf 'Depends: %s\n' "$depends"
        printf 'Homepage: https://github.com/pushhost/pushhost\nDescription: %s\n' "$summary"
        printf '%s\n' "$description" | fold -s -w 78 | sed 's/ *$//; s/^/ /'
    } > "$tree/DEBIAN/control"
    (cd "$tree" && find usr -type f -exec md5sum {} + | sort -k2) > "$tree/DEBIAN/md5sums"
    find "$tree" -type d -exec chmod 0755 {} +
    dpkg-deb --root-owner-group -Zxz --build "$tree" "$out/${package}_${version}_${arch}.deb" >/dev/null
    echo "$out/${package}_${version}_${arch}.deb"
}

# Man pages compressed, ELF files stripped of their debug information and
# symbol tables (their .comment stays: pushhost compares a Swift plugin's
# toolchain with its own by it).
gzip -9n "$stage"/usr/share/man/man1/*.1
find "$stage/usr" -type f -exec sh -c 'head -c 4 "$1" | grep -q ELF' sh {} \; -print | while read -r file; do
    case "$file" in
        *.so) strip --strip-unneeded --remove-section=.note "$file" ;;
        *) strip --remove-section=.note "$file" ;;
    esac
done
for transport in "$transports"/*.so; do
    cp "$transport" "$work/"
    strip --strip-unneeded --remove-section=.note "$work/$(basename "$transport")"
done

move pushhost-dev usr/include/pushhost.h usr/share/pkgconfig/pushhost.pc usr/share/pushhost
move pushhost-samples usr/lib/pushhost/samples
move pushhost usr
for transport in desktop unifiedpush nats; do
    file=$(ls "$transports" | grep -E "^lib(pushhost-)?$transport\.so$")
    mkdir -p "$work/pushhost-$transport/usr/lib/pushhost/transports"
    install -m 0755 "$work/$file" "$work/pushhost-$transport/usr/lib/pushhost/transports/"
done

build pushhost net "" "host for push-notification handler plugins" \
    "pushhost loads handler plugins (shared libraries in C or Swift) through a small, versioned C ABI, reads push messages as NDJSON from standard input or a spool folder, and dispatches each one by app state and target: a data stage before any UI stage, background handlers, foreground screens, and a token receiver. It carries the Swift runtime it links; the systemd units load the plugins in /usr/lib/pushhost/plugins, none at first."
build pushhost-dev libdevel "" "plugin API of pushhost: C header, pkg-config file, Swift SDK" \
    "For authors of pushhost plugins: pushhost.h and pushhost.pc for C plugins, the Swift SDK (PushHostPlugin) as a Swift package in /usr/share/pushhost/PushHostPlugin, which 'pushhost new plugin --language swift' depends on, and the one-file SDKs of process plugins for Python and Node.js in /usr/share/pushhost/sdk, which 'pushhost new plugin --language python|node' copies."
build pushhost-samples net "pushhost (= $version)" "sample plugins of pushhost" \
    "The sample plugins of pushhost, in C and Swift, in /usr/lib/pushhost/samples, where the units do not load them: copy one (and its settings file) into /usr/lib/pushhost/plugins to enable it. The Swift ones run on pushhost's own Swift runtime."
build pushhost-desktop net "pushhost (= $version)" "desktop notifications plugin for pushhost" \
    "Shows each background message as a desktop notification on the session bus, and hands taps and replies back as actions. Installed in /usr/lib/pushhost/transports; copy it into a plugins folder to use it."
build pushhost-unifiedpush net "pushhost (= $version)" "UnifiedPush connector plugin for pushhost" \
    "A UnifiedPush connector on the session bus, with Web Push decryption: endpoints become tokens, pushes become messages. Installed in /usr/lib/pushhost/transports; copy it into a plugins folder to use it."
build pushhost-nats net "pushhost (= $version)" "NATS JetStream source plugin for pushhost" \
    "Takes records from a NATS JetStream stream that many hosts share, settling each once its report line is written. Installed in /usr/lib/pushhost/transports; copy it into a plugins folder to use it."
