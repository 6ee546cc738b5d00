"""Every module has a README a newcomer can start from: one per Maven module (the parent poms'
<modules>, followed down) and one per Python package of bench/ and deploy/. Each names its
module in its title; a Maven module's README says, under "## In the build", which of the
project's modules it uses and which use it, as its pom and theirs say; a table of classes or
files names only classes and files that exist; and docs/architecture.md's diagram of the modules
draws what the poms declare."""
import re
import xml.etree.ElementTree as ET

import pytest

from p2psip_deploy import layout

POM = {"m": "http://maven.apache.org/POM/4.0.0"}
GROUP = "org.p2psip"
BUILD_SECTION = "## In the build"


def modules(folder=layout.ROOT):
    """Every module below the pom in folder (itself included), as {folder: its pom's root}."""
    pom = ET.parse(folder / "pom.xml").getroot()
    found = {folder: pom}
    for child in pom.findall("m:modules/m:module", POM):
        found.update(modules(folder / child.text.strip()))
    return found


MODULES = modules()


def name(folder):
    return folder.relative_to(layout.ROOT).as_posix()


def artifact(pom):
    return pom.find("m:artifactId", POM).text.strip()


def project_dependencies(pom):
    """The artifactIds of the project's own modules this pom depends on, in any scope."""
    return {d.find("m:artifactId", POM).text.strip() for d in pom.findall("m:dependencies/m:dependency", POM)
            if d.find("m:groupId", POM).text.strip() in (GROUP, "${project.groupId}")}


FOLDER_OF = {artifact(pom): folder for folder, pom in MODULES.items()}
LEAVES = [folder for folder, pom in MODULES.items() if not pom.findall("m:modules/m:module", POM)]
PACKAGES = sorted(p.parent for top in ("bench", "deploy") for p in (layout.ROOT / top).glob("*/__init__.py"))


def readme(folder):
    file = folder / "README.md"
    assert file.is_file(), f"{name(folder) or 'the repository'} has no README.md: every module has one"
    return file.read_text()


def named(text, folder, loosely=False):
    """Whether text names the module in folder: by its path, its artifactId, or its folder's name
    in backticks (loosely: the folder's name as a word, as a title may)."""
    names = {name(folder), folder.name + "/", f"`{folder.name}`"}
    if folder in MODULES:
        names.add(artifact(MODULES[folder]))
    return any(n in text for n in names) or (loosely and re.search(rf"\b{re.escape(folder.name)}\b", text) is not None)


def section(text, title):
    """The lines of a README's section, from its title to the next title of its level or higher."""
    lines = text.splitlines()
    if title not in lines:
        return None
    start = lines.index(title) + 1
    level = title.split()[0]
    end = next((i for i in range(start, len(lines))
                if lines[i].startswith("#") and len(lines[i].split()[0]) <= len(level)), len(lines))
    return "\n".join(lines[start:end])


@pytest.mark.parametrize("folder", sorted(MODULES) + PACKAGES, ids=lambda f: name(f) or "root")
def test_every_module_has_a_readme_whose_title_names_it(folder):
    title = readme(folder).splitlines()[0]
    if folder == layout.ROOT:
        assert title.startswith("# "), f"README.md begins with a title, not {title!r}"
        return
    assert title.startswith("# ") and named(title, folder, loosely=True), (
        f"{name(folder)}/README.md's title names the module ({name(folder)}, or {folder.name}); it is {title!r}")


@pytest.mark.parametrize("folder", [f for f in sorted(MODULES) if f not in LEAVES], ids=lambda f: name(f) or "root")
def test_an_aggregators_readme_names_each_of_its_modules(folder):
    text = readme(folder)
    children = [folder / m.text.strip() for m in MODULES[folder].findall("m:modules/m:module", POM)]
    missing = [name(child) for child in children if not named(text, child)]
    assert not missing, f"{name(folder) or 'the repository'}'s README does not name its modules {missing}"


def users_of(folder):
    own = artifact(MODULES[folder])
    return {f for f in LEAVES if own in project_dependencies(MODULES[f])}


@pytest.mark.parametrize("folder", sorted(LEAVES), ids=name)
def test_a_modules_readme_says_what_it_uses_and_what_uses_it_as_the_poms_do(folder):
    build = section(readme(folder), BUILD_SECTION)
    assert build is not None, f"{name(folder)}/README.md has no section {BUILD_SECTION!r} (what it uses, what uses it, its tests)"
    uses = {FOLDER_OF[a] for a in project_dependencies(MODULES[folder]) if a in FOLDER_OF}
    unnamed_uses = sorted(name(f) for f in uses if not named(build, f))
    unnamed_users = sorted(name(f) for f in users_of(folder) if not named(build, f))
    assert not unnamed_uses, f"{name(folder)}'s pom depends on {unnamed_uses}, which its {BUILD_SECTION!r} does not name"
    assert not unnamed_users, f"{unnamed_users} depend on {name(folder)} in their poms, which its {BUILD_SECTION!r} does not name"


def table_first_cells(text, header):
    """The first cells of the rows of every table whose first header cell is header."""
    cells, inside = [], False
    for line in text.splitlines():
        if not line.startswith("|"):
            inside = False
            continue
        first = line.strip("|").split("|")[0].strip()
        if not inside:
            inside = first.lower() == header
            continue
        if not set(first) <= set("-: "):
            cells.append(first)
    return cells


def java_classes(folder):
    return {p.stem for p in folder.glob("src/**/*.java")}


@pytest.mark.parametrize("folder", sorted(LEAVES), ids=name)
def test_a_modules_class_table_names_classes_that_exist(folder):
    text = readme(folder)
    classes = java_classes(folder)
    named_classes = [n for cell in table_first_cells(text, "class") for n in re.findall(r"`([A-Za-z0-9_.]+)`", cell)]
    assert named_classes or not classes, f"{name(folder)}/README.md has no table whose first column is 'class'"
    gone = [n for n in named_classes if not set(n.split(".")) & classes]
    assert not gone, f"{name(folder)}/README.md's class table names {gone}, which no .java file of the module is"


@pytest.mark.parametrize("folder", PACKAGES, ids=name)
def test_a_packages_file_table_names_files_that_exist(folder):
    files = [n for cell in table_first_cells(readme(folder), "file") for n in re.findall(r"`([^`]+)`", cell)]
    assert files, f"{name(folder)}/README.md has no table whose first column is 'file'"
    gone = [f for f in files if not (folder / f).exists()]
    assert not gone, f"{name(folder)}/README.md's file table names {gone}, which are not in {name(folder)}/"


def main_dependencies(pom):
    """The project's modules a pom uses outside its tests: compile and provided scope (a test jar's
    scope is test, set where the parent manages it)."""
    def text(d, tag):
        found = d.find(f"m:{tag}", POM)
        return found.text.strip() if found is not None else ""
    return {text(d, "artifactId") for d in pom.findall("m:dependencies/m:dependency", POM)
            if text(d, "groupId") in (GROUP, "${project.groupId}") and text(d, "scope") != "test"
            and text(d, "type") != "test-jar"}


def drawn_dependencies(text):
    """The mermaid graph of docs/architecture.md as {module's artifactId: the artifactIds it points at}."""
    graph = re.search(r"```mermaid\n(.*?)```", text, re.S).group(1)
    by_path = {name(folder): artifact(pom) for folder, pom in MODULES.items()}
    by_path.update({artifact(pom): artifact(pom) for pom in MODULES.values()})
    ids = {node: by_path[label.split(":")[0].strip()]
           for node, label in re.findall(r"^\s*(\w+)\[([^\]]+)\]\s*$", graph, re.M) if label.split(":")[0].strip() in by_path}
    drawn = {module: set() for module in ids.values()}
    for source, targets in re.findall(r"^\s*(\w+)\s+-(?:->|\.[^.]*\.->)\s+(.+)$", graph, re.M):
        drawn[ids[source]] |= {ids[t.strip()] for t in targets.split("&")}
    return drawn


def test_the_architecture_diagram_draws_what_the_poms_say_each_module_uses():
    drawn = drawn_dependencies((layout.ROOT / "docs" / "architecture.md").read_text())
    poms = {artifact(pom): main_dependencies(pom) & set(drawn) for pom in MODULES.values() if artifact(pom) in drawn}
    wrong = {m: (sorted(drawn[m]), sorted(poms[m])) for m in drawn if drawn[m] != poms[m]}
    assert not wrong, ("docs/architecture.md's diagram and the poms disagree, as {module: (drawn, in the pom)}: "
                       f"{wrong}")
