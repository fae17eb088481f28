#!/usr/bin/env bash
# The macOS disk image of Vancetope Desktop (issue 16). Not built by this project's CI (Linux only): run it on
# a Mac, from the repository root, with the dev environment of packaging/dev.py:
#
#   .venv/bin/python packaging/build_bundle.py --no-deb    # PyInstaller; on macOS the spec's BUNDLE makes
#                                                          # dist/Vancetope Desktop.app around the same folder
#   bash installer/macos/build_dmg.sh                      # dist/vancetope-desktop-<version>.dmg
#
# The same recipe as the Linux .deb: the whole onedir folder inside the .app (Contents/MacOS and
# Contents/Frameworks), the command line as Contents/MacOS/vancetope (link it onto the PATH:
# ln -s "/Applications/Vancetope Desktop.app/Contents/MacOS/vancetope" /usr/local/bin/vancetope).
# Signing and notarisation need the publisher's Developer ID: set CODESIGN_IDENTITY to sign; unsigned, Gatekeeper
# asks the user to open the app from the Finder's context menu the first time.
set -euo pipefail
cd "$(dirname "$0")/../.."

APP="dist/Vancetope Desktop.app"
VERSION=$(python3 -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')
DMG="dist/vancetope-desktop-${VERSION}.dmg"

if [[ ! -d "$APP" ]]; then
    echo "no $APP: build the bundle first (packaging/build_bundle.py --no-deb, on macOS)" >&2
    exit 1
fi
if [[ -n "${CODESIGN_IDENTITY:-}" ]]; then
    codesign --deep --force --options runtime --timestamp --sign "$CODESIGN_IDENTITY" "$APP"
fi

STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
cp -R "$APP" "$STAGE/"
ln -s /Applications "$STAGE/Applications"  # drag the app onto it
rm -f "$DMG"
hdiutil create -volname "Vancetope Desktop" -srcfolder "$STAGE" -fs HFS+ -format UDZO -imagekey zlib-level=9 "$DMG"
echo "$DMG: $(du -h "$DMG" | cut -f1)"
