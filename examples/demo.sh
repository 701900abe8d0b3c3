#!/usr/bin/env bash
# Builds pushhost and the sample plugins (C: cache, notify, issues, supplies,
# token-log, and the interceptors dedupe and enrich; Swift: inbox, orders,
# and the interceptor debounce), puts them in one folder with the settings
# files of cache, inbox and enrich, and plays examples/story.ndjson through
# them: tokens, messages of every shape, screens, bad input, and a rich
# message (an image, two actions) tapped and replied to while the app is in
# the background. Before the data stage, the interceptors see every message,
# in file-name order: debounce holds each message aimed at a target for
# 300 ms, and of a burst for one target (orders 78's three updates) keeps the
# last; dedupe drops the second m-113, a repeat; enrich gives each
# notification without a picture one made from the message's target and id.
# Then the host restarts and examples/story-restart.ndjson opens the app: the
# reply, retained across the restart, reaches the issues screen.
#
# A blank line in a story is time passing: the demo waits half a second there
# (pushhost itself skips blank lines), so that debounce has let the message
# before it go when the next record comes.
set -euo pipefail
cd "$(dirname "$0")/.."

swift build --quiet
bin=$(swift build --show-bin-path)
demo=.build/demo
rm -rf "$demo"
mkdir -p "$demo/plugins" "$demo/out"
for name in cache notify issues supplies token-log inbox orders dedupe enrich debounce; do
    cp "$bin/lib$name.so" "$demo/plugins/$name.so"
done
cp examples/plugins/cache.json examples/plugins/inbox.json examples/plugins/enrich.json "$demo/plugins/"

# Writes the story FILE's lines, pausing half a second at each blank one.
play() {
    while IFS= read -r line || [ -n "$line" ]; do
        if [ -z "$line" ]; then sleep 0.5; else printf '%s\n' "$line"; fi
    done < "$1"
}

echo "== pushhost plugins --plugins $demo/plugins"
"$bin/pushhost" plugins --plugins "$demo/plugins"
echo
echo "== play examples/story.ndjson | pushhost run --plugins $demo/plugins --platform android --report $demo/report.ndjson"
play examples/story.ndjson |
    "$bin/pushhost" run --plugins "$demo/plugins" --platform android --state "$demo/state" --report "$demo/report.ndjson" 2>&1
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
echo "== the host restarts, and the app opens: play examples/story-restart.ndjson | pushhost run ... --report $demo/restart.ndjson"
play examples/story-restart.ndjson |
    "$bin/pushhost" run --plugins "$demo/plugins" --platform android --state "$demo/state" --report "$demo/restart.ndjson" 2>&1
echo
echo "== the report of the restart ($demo/restart.ndjson)"
cat "$demo/restart.ndjson"
echo
echo "== pushhost token --state $demo/state"
"$bin/pushhost" token --state "$demo/state"
