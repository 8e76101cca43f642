#!/bin/sh
# Print the path of a Python interpreter of the given version (e.g. 3.13), or explain what to install.
# Looks on PATH first, then in pyenv (python.org-style installs of several versions live there on
# these machines, not on PATH), then in the usual install folders.
version="$1"
for candidate in "python$version" \
    "$(pyenv root 2>/dev/null)"/versions/"$version"*/bin/python"$version" \
    "$HOME"/.pyenv/versions/"$version"*/bin/python"$version" \
    /usr/local/bin/python"$version" /opt/homebrew/bin/python"$version" \
    /Library/Frameworks/Python.framework/Versions/"$version"/bin/python"$version"; do
    found=$(command -v "$candidate" 2>/dev/null) || continue
    if "$found" -c "import sys, venv; sys.exit(sys.version_info[:2] != tuple(map(int, '$version'.split('.'))))" 2>/dev/null; then
        echo "$found"
        exit 0
    fi
done
echo "Python $version is needed to test Kiln on Blender $2 and was not found: install it (for example \`pyenv install $version\`, or from python.org) and run make again." >&2
exit 1
