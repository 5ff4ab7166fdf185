"""Packaging basics (issue 27): a license file, a change log in the Keep a Changelog form, a
citation file and a version policy, all telling the same version and license."""

from __future__ import annotations

import re
from importlib.metadata import metadata
from pathlib import Path

import snl_numeric
from snl_numeric._core.deprecation import REMOVED_IN

ROOT = Path(__file__).resolve().parents[2]


def _read(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


def test_license_is_bsd_3_clause_everywhere():
    text = _read("LICENSE")
    assert text.startswith("BSD 3-Clause License")
    assert "Neither the name of the copyright holder nor the names of its" in text
    assert 'license = { text = "BSD-3-Clause" }' in _read("pyproject.toml")
    assert re.search(r"^license: BSD-3-Clause$", _read("CITATION.cff"), re.M)


def test_citation_and_metadata_name_this_version():
    cff = _read("CITATION.cff")
    assert re.search(r"^cff-version: 1\.2\.0$", cff, re.M)
    assert re.search(rf"^version: {re.escape(snl_numeric.__version__)}$", cff, re.M)
    assert metadata("snl_numeric")["Version"] == snl_numeric.__version__


def test_changelog_keeps_a_changelog():
    log = _read("CHANGELOG.md")
    assert "[Keep a Changelog](https://keepachangelog.com/" in log
    releases = re.findall(r"^## \[(.+?)\]", log, re.M)
    assert releases[0] == "Unreleased" and snl_numeric.__version__ in releases
    kinds = set(re.findall(r"^### (.+)$", log, re.M))
    assert kinds <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}
    assert {"Added", "Changed"} <= kinds


def test_version_policy_lists_every_deprecation_with_its_release():
    policy = _read("docs/version_policy.md")
    for old in ("expected_throws", "DesignResult.expected", "PolicyResult.expected_start",
                "finish_within(..., k=...)", "snl policy --dice"):
        row = next(line for line in policy.splitlines() if f"`{old}`" in line)
        assert row.rstrip().endswith(f"| {REMOVED_IN} |"), row
