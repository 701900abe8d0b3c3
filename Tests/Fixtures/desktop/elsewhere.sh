#!/bin/sh
# Runs COMMAND in a network of its own, where 198.51.100.7 (a documentation
# address: public, as far as the desktop plugin can tell) is this machine's,
# and images.py serves on port 8080 of every address there; then writes the
# paths it was asked for into FOLDER/requests. Run it in a new network
# namespace, which needs root:
#
#     unshare --net elsewhere.sh FOLDER COMMAND...
set -eu
folder=$1
shift
here=$(dirname "$0")
ip link set lo up
ip addr add 198.51.100.7/32 dev lo
/usr/bin/python3 "$here/images.py" 0.0.0.0 8080 > "$folder/port" 2> /dev/null &
server=$!
trap 'kill $server 2> /dev/null || true' EXIT
tries=0
while [ ! -s "$folder/port" ]; do
    tries=$((tries + 1))
    if [ $tries -gt 200 ]; then echo "images.py did not start" >&2; exit 1; fi
    sleep 0.05
done
status=0
"$@" || status=$?
/usr/bin/python3 -c '
import urllib.request
direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
print(direct.open("http://127.0.0.1:8080/requests").read().decode(), end="")' > "$folder/requests"
exit $status
