#!/usr/bin/env bash
# Runs a command next to a real, throwaway Secret Service: a private D-Bus
# session bus (dbus-run-session) with GNOME Keyring unlocked on it, in a fresh
# HOME that is removed afterwards. The person's own keyring is never touched.
#
#   scripts/with-secret-service.sh COMMAND [ARGS...]
#
# The exit status is the command's. npm test uses it through
# scripts/run-tests.ts, so the keytar tests run against the real thing.
set -euo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: $0 COMMAND [ARGS...]" >&2
  exit 2
fi
for tool in dbus-run-session gnome-keyring-daemon; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "$0: $tool is missing; install it with: apt-get install gnome-keyring dbus libsecret-1-dev" >&2
    exit 127
  fi
done

home=$(mktemp -d "${TMPDIR:-/tmp}/assent-keyring-XXXXXX")
trap 'rm -rf "$home"' EXIT
mkdir -m 0700 "$home/run"
export HOME="$home" XDG_RUNTIME_DIR="$home/run" XDG_DATA_HOME="$home/.local/share"
export ASSENT_SECRET_SERVICE=throwaway

status=0
# dbus-daemon reports harmless things on stderr (it cannot raise its fd limit
# in a container); they go to a log, so the command's own output ends the run.
# fd 3 carries the real stderr through to the command. The keyring's
# password only unlocks this throwaway login keyring.
dbus-run-session -- bash -c '
  printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null
  : >"$HOME/started"
  exec "$@" 2>&3 3>&-
' with-secret-service "$@" 3>&2 2>"$home/dbus.log" || status=$?
# The keyring daemon usually leaves with its bus; make sure of it. Only the
# daemon started here has this HOME.
for proc in /proc/[0-9]*; do
  [ "$(cat "$proc/comm" 2>/dev/null)" = gnome-keyring-d ] || continue
  if tr '\0' '\n' 2>/dev/null <"$proc/environ" | grep -qxF "HOME=$home"; then
    kill "${proc#/proc/}" 2>/dev/null || true
  fi
done
if [ ! -e "$home/started" ]; then
  echo "$0: could not start a D-Bus session with GNOME Keyring:" >&2
  cat "$home/dbus.log" >&2
fi
exit "$status"
