#!/usr/bin/env bash
# Builds pushhost and the sample plugins (C: cache, notify, issues, supplies,
# token-log; Swift: inbox, orders), puts them in one folder with the settings
# files of cache and inbox, and plays examples/story.ndjson through them:
# tokens, messages of every shape, screens, bad input, and a rich message
# (an image, two actions) tapped and replied to while the app is in the
# background. Then the host restarts and examples/story-restart.ndjson opens
# the app: the reply, retained across the restart, reaches the issues screen.
set -euo pipefail
cd "$(dirname "$0")/.."

swift build --quiet
bin=$(swift build --show-bin-path)
demo=.build/demo
rm -rf "$demo"
mkdir -p "$demo/plugins" "$demo/out"
for name in cache notify issues supplies token-log inbox orders; do
    cp "$bin/lib$name.so" "$demo/plugins/$name.so"
done
cp examples/plugins/cache.json examples/plugins/inbox.json "$demo/plugins/"

echo "== pushhost plugins --plugins $demo/plugins"
"$bin/pushhost" plugins --plugins "$demo/plugins"
echo
echo "== pushhost run --plugins $demo/plugins --platform android --report $demo/report.ndjson < examples/story.ndjson"
"$bin/pushhost" run --plugins "$demo/plugins" --platform android --state "$demo/state" --report "$demo/report.ndjson" \
    < examples/story.ndjson 2>&1
echo
echo "== the report ($demo/report.ndjson)"
cat "$demo/report.ndjson"
echo
echo "== what the cache plugin (C) kept ($demo/out/cache.tsv)"
cat "$demo/out/cache.tsv"
echo
echo "== what the inbox plugin (Swift, async) filed ($demo/out/inbox.tsv; in the order its handlers finished)"
cat "$demo/out/inbox.tsv"
echo
echo "== the host restarts, and the app opens: pushhost run ... --report $demo/restart.ndjson < examples/story-restart.ndjson"
"$bin/pushhost" run --plugins "$demo/plugins" --platform android --state "$demo/state" --report "$demo/restart.ndjson" \
    < examples/story-restart.ndjson 2>&1
echo
echo "== the report of the restart ($demo/restart.ndjson)"
cat "$demo/restart.ndjson"
echo
echo "== pushhost token --state $demo/state"
"$bin/pushhost" token --state "$demo/state"
