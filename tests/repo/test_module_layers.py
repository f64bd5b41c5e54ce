"""The module graph of docs/ARCHITECTURE.md, held by a test (issue 35): each of the
product's modules imports only modules it declares in Package.swift, and declares only
modules of a lower layer, so a dependency that runs upward (the catalog reaching the
vault, the store reaching the catalog) fails here even where the compiler would let an
undeclared import through."""

import pathlib
import re

REPO = pathlib.Path(__file__).resolve().parents[2]
# Layers, lowest first: a module may depend on modules of lower layers only.
LAYERS = [
    ["ObscuraCrypto", "ObscuraPlaces", "ObscuraOCR"],
    ["ObscuraStore", "ObscuraImaging", "ObscuraIndexing"],
    ["ObscuraPages", "ObscuraKeys"],
    ["ObscuraCatalog"],
    ["ObscuraKit"],
    ["ObscuraServer"],
    ["ObscuraCLI"],
    ["obscura"],
]
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}
IMPORT = re.compile(r"^\s*(?:@testable\s+)?import\s+(\w+)", re.MULTILINE)


def declared():
    """{target: set of the project's targets it names as dependencies}, from Package.swift."""
    text = (REPO / "Package.swift").read_text()
    found = {}
    for match in re.finditer(r'\.(?:target|executableTarget)\(\s*name:\s*"(\w+)"', text):
        rest = text[match.end():]
        deps = re.match(r'\s*,\s*dependencies:\s*\[', rest)
        names = set()
        if deps:
            depth, i = 1, deps.end()
            while depth:
                depth += {"[": 1, "]": -1}.get(rest[i], 0)
                i += 1
            names = set(re.findall(r'(?<![\w.])"(\w+)"', re.sub(r'\.product\([^)]*\)', "", rest[deps.end():i])))
        found[match.group(1)] = names
    return found


def test_each_module_imports_only_what_it_declares():
    targets = declared()
    wrong = []
    for module in RANK:
        allowed = targets[module] | {module}
        for path in (REPO / "Sources" / module).rglob("*.swift"):
            for imported in IMPORT.findall(path.read_text()):
                if imported in RANK and imported not in allowed:
                    wrong.append(f"{path.relative_to(REPO)} imports {imported}")
    assert wrong == []


def test_dependencies_run_downward():
    targets = declared()
    upward = [f"{module} -> {dep}" for module in RANK for dep in targets[module]
              if dep in RANK and RANK[dep] >= RANK[module]]
    assert upward == []


def test_the_graph_is_read():
    # The parse must see the real graph, or the two tests above pass on nothing.
    targets = declared()
    assert {"ObscuraCrypto", "ObscuraStore"} <= targets["ObscuraCatalog"]
    assert {"ObscuraCatalog", "ObscuraKeys", "ObscuraStore"} <= targets["ObscuraKit"]
    assert "ObscuraKit" not in targets["ObscuraCatalog"]


def test_no_process_that_holds_keys_links_the_ocr_engine():
    """docs/SEARCH.md §S3.4: libtesseract (with libcurl and OpenMP) and the indexer's
    sandbox belong to obscura-indexer alone; the vault, the server and the CLI reach the
    indexer through ObscuraIndexing's protocol, never by linking its engines."""
    targets = declared()

    def closure(name, seen=None):
        seen = set() if seen is None else seen
        for dep in targets.get(name, ()):
            if dep not in seen:
                seen.add(dep)
                closure(dep, seen)
        return seen

    engines = {"ObscuraOCR", "CObscuraOCR", "CTesseract", "CLeptonica", "CObscuraSandbox", "CSeccomp"}
    for holder in ["ObscuraKit", "ObscuraServer", "ObscuraCLI", "obscura"]:
        assert holder in targets
        assert closure(holder) & engines == set(), holder
    assert "ObscuraIndexing" in targets and closure("ObscuraIndexing") & engines == set()
