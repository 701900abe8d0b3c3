#!/bin/sh
# count-sh: a process plugin in POSIX sh, with the background role. It writes
# the id of each message to seen.txt in its state folder.
#
# It starts one jq per call and writes each answer as it goes: the simplest
# program, not the fastest.
set -u
seen="${PUSHHOST_STATE:-.}/seen.txt"

printf '{"pushhost":1}\n'
while IFS= read -r line || [ -n "$line" ]; do
    # One jq for the three fields: "ID CALL MESSAGE-ID".
    fields=$(printf '%s\n' "$line" | jq -r '"\(.id) \(.call) \(.message.id // "")"') || fields=
    id=${fields%% *}
    case $id in
        ''|*[!0-9]*) echo "not a call: $line" >&2; continue ;;
    esac
    rest=${fields#* }
    call=${rest%% *}
    if [ "$call" = background ]; then
        printf '%s\n' "${rest#* }" >> "$seen"
        printf '{"id":%s}\n' "$id"
    else
        printf '{"id":%s,"error":"count-sh takes background calls only"}\n' "$id"
    fi
done
