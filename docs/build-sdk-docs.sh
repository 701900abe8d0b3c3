#!/usr/bin/env bash
# Builds the DocC documentation of PushHostPlugin, the Swift SDK for plugin
# authors (sdk/Sources/PushHostPlugin/PushHostPlugin.docc and the doc
# comments), with every DocC warning an error. swift-docc-plugin is a
# dependency of the SDK package only under PUSHHOST_DOCS=1 (see the end of
# sdk/Package.swift).
#
# PUSHHOST_DOCS_SCRATCH names another build folder (default .build/docs).
set -euo pipefail
cd "$(dirname "$0")/.."

scratch="${PUSHHOST_DOCS_SCRATCH:-.build/docs}"
PUSHHOST_DOCS=1 swift package --package-path sdk --scratch-path "$scratch" \
    generate-documentation --target PushHostPlugin --warnings-as-errors

archive="$scratch/plugins/Swift-DocC/outputs/PushHostPlugin.doccarchive"
if [ ! -d "$archive" ]; then
    echo "build-sdk-docs: no archive at $archive" >&2
    exit 1
fi
echo "SDK documentation: $(cd "$archive" && pwd)"
