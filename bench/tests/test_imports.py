"""The sipbench modules import one another without a cycle: a cycle forces imports into function
bodies and makes a module's meaning depend on which one was imported first."""
import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "sipbench"


def imported(path: Path) -> set[str]:
    """The sipbench modules a module imports (`from . import x`, `from .x import y`), anywhere in it."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names |= {node.module} if node.module else {alias.name for alias in node.names}
    return names


def graph() -> dict[str, set[str]]:
    return {path.stem: imported(path) for path in PACKAGE.glob("*.py")}


def cycle(edges: dict[str, set[str]]) -> list[str]:
    """One import cycle as [a, b, ..., a], or [] when there is none (depth-first search)."""
    done, path = set(), []

    def visit(module: str) -> list[str]:
        if module in path:
            return path[path.index(module):] + [module]
        if module in done:
            return []
        path.append(module)
        for other in sorted(edges.get(module, ())):
            found = visit(other)
            if found:
                return found
        path.pop()
        done.add(module)
        return []

    for module in sorted(edges):
        found = visit(module)
        if found:
            return found
    return []


def test_the_search_finds_a_cycle_and_only_a_cycle():
    assert cycle({"cli": {"report"}, "report": {"cli"}}) == ["cli", "report", "cli"]
    assert cycle({"cli": {"report", "modes"}, "report": {"modes"}, "modes": set()}) == []


def test_the_sipbench_modules_import_one_another_without_a_cycle():
    edges = graph()
    assert "report" in edges["cli"], "the graph is read: cli imports report"
    assert cycle(edges) == []
