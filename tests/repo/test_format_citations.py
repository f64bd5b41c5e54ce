"""Every docs/FORMAT.md citation in the code names a section that exists (issue 35,
item 5): `§N` or `§N.M`, and with a quoted name (`§3.3 "Notes"`) a section whose text
holds that name. A citation of another document on the same line (`RFC 9180 §5.1`,
`§5.3`) is that document's: lines that name an RFC are checked only for a FORMAT.md
citation with its name (`the root of §10.2`)."""

import pathlib
import re

REPO = pathlib.Path(__file__).resolve().parents[2]
CITATION = re.compile(r'§(\d+(?:\.\d+)*)(?: "([^"]+)")?')
HEADING = re.compile(r"^#{2,3} §(\d+(?:\.\d+)*)\b")
SOURCES = [p for p in (REPO / "Sources").rglob("*") if p.suffix in {".swift", ".c", ".h", ".js", ".html"}]


def sections():
    """Each section's number and text: a section's own lines, and for `§N` its subsections' too."""
    text, current, out = (REPO / "docs" / "FORMAT.md").read_text().splitlines(), None, {}
    for line in text:
        found = HEADING.match(line)
        if found:
            current = found.group(1)
            out.setdefault(current, [])
        if current:
            out[current].append(line)
            if "." in current:
                out.setdefault(current.split(".")[0], []).append(line)
    return {number: "\n".join(lines) for number, lines in out.items()}


def test_every_format_citation_in_the_code_names_a_section_that_exists():
    known = sections()
    assert {"3.3", "8.8", "9.3", "10.2"} <= set(known)
    wrong = []
    for path in SOURCES:
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            other_document = re.search(r"\bRFC \d+", line)
            for cited in CITATION.finditer(line):
                section, name = cited.groups()
                where = f"{path.relative_to(REPO)}:{number}: §{section}" + (f' "{name}"' if name else "")
                if other_document and cited.start() > other_document.start() and section not in known:
                    continue  # the RFC's own section
                if section not in known:
                    wrong.append(where + " (no such section)")
                elif name and name.lower() not in known[section].lower():
                    wrong.append(where + f" (§{section} does not say {name!r})")
    assert not wrong, "\n".join(wrong)
