#!/usr/bin/env bash
# Builds pushhost and the sample plugins, puts the plugins in one folder with
# their settings files, and shows what would load.
set -euo pipefail
cd "$(dirname "$0")/.."

swift build
bin=$(swift build --show-bin-path)
demo=.build/demo
rm -rf "$demo"
mkdir -p "$demo/plugins" "$demo/out"
for name in cache notify issues supplies token-log; do
    cp "$bin/lib$name.so" "$demo/plugins/$name.so"
    cp "examples/plugins/$name.json" "$demo/plugins/$name.json"
done

echo "== pushhost plugins --plugins $demo/plugins"
"$bin/pushhost" plugins --plugins "$demo/plugins"
