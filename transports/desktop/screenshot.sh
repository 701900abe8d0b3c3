#!/usr/bin/env bash
# Takes docs/desktop.md's screenshot of a real notification: dunst on a virtual X
# screen (Xvfb), on a session bus of its own (dbus-run-session), showing a
# message that pushhost posted through the desktop plugin.
#
#     bash transports/desktop/screenshot.sh [OUT.png]     # default docs/desktop-notification.png
#
# Needs: Xvfb, dunst, imagemagick (import, convert), dbus (Debian: apt-get
# install xvfb dunst imagemagick dbus), a built pushhost (swift build) and
# the built plugin (make -C transports desktop).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-docs/desktop-notification.png}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT

# A picture for the notification: a printer-red square with a white bar.
convert -size 96x96 xc:'#c0392b' -fill white -draw 'rectangle 20,40 76,56' "$work/jam.png"

cat > "$work/dunstrc" <<'EOF'
[global]
    width = 460
    height = 160
    origin = top-right
    offset = 16x16
    font = DejaVu Sans 11
    frame_width = 2
    frame_color = "#5e81ac"
    padding = 12
    horizontal_padding = 12
    icon_position = left
    max_icon_size = 96
    format = "<b>%s</b>\n%b"
[urgency_normal]
    background = "#2e3440"
    foreground = "#eceff4"
    timeout = 0
EOF

Xvfb :97 -screen 0 520x200x24 -nolisten tcp >/dev/null 2>&1 &
sleep 1
export DISPLAY=:97
dbus-run-session -- bash -c '
    dunst -config "$1/dunstrc" >/dev/null 2>&1 &
    sleep 1
    printf "%s\n" "{\"message_id\":\"m-101\",\"notification\":{\"title\":\"Printer jammed\",\"body\":\"Floor 2, tray 1: paper stuck behind the rear door\",\"image\":\"$1/jam.png\"},\"data\":{\"rx_gcm_key_target\":\"issues\",\"actions\":[{\"id\":\"ack\",\"title\":\"On my way\"}]}}" |
        .build/debug/pushhost run --plugin transports/build/libdesktop.so --set desktop.actions=false --set desktop.app_name=Office \
            --set desktop.image_dirs="$1"
    sleep 1
    import -window root "$2"
' screenshot "$work" "$out"
echo "wrote $out"
