"""Make the editor's screenshots of the docs (``docs/images/editor*.png``).

Run from the repository: ``python docs/images/editor_screenshots.py``. It writes the
editable report of Milton Bradley and photographs it with headless chromium
(``chromium --headless --screenshot``): as written, and with an edited board given in the
URL fragment (the link the page's "link to this board" makes).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

from snl_numeric import boards, report

HERE = os.path.dirname(os.path.abspath(__file__))


def shoot(url: str, out: str, width: int, height: int) -> None:
    exe = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))))
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        f"--user-data-dir={profile}", f"--window-size={width},{height}",
                        f"--screenshot={out}", url],
                       check=True, capture_output=True, timeout=120)


def main() -> int:
    mb = boards.get("milton-bradley")
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "editor.html")
        report(mb, page, editable=True)
        url = "file://" + page
        shoot(url, os.path.join(HERE, "editor.png"), 1000, 2300)
        edited = mb.replace(jumps={**mb.jumps, 50: 99, 87: 94}, overshoot="bounce", dice="2d6")
        frag = "#board=" + urllib.parse.quote(edited.to_json())
        shoot(url + frag, os.path.join(HERE, "editor-edited.png"), 1000, 2300)
    return 0


if __name__ == "__main__":
    sys.exit(main())
