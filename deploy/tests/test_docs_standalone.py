"""The repository's documentation stands alone: no README, comment or script points at files
outside it (the design notes it once relied on now live in docs/)."""
import re
import subprocess

from p2psip_deploy import layout

# A path that leaves the repository: the sibling folder the project was started from, or the
# folder one machine happens to hold its checkout in.
OUTSIDE = re.compile(r"(\.\./)+shared/|\bshared/design/|(^|[\s(`'\"])/work/")


def tracked_files():
    listed = subprocess.run(["git", "ls-files"], cwd=layout.ROOT, capture_output=True, text=True, check=True)
    return [layout.ROOT / name for name in listed.stdout.splitlines()]


def test_no_tracked_file_refers_to_a_path_outside_the_repository():
    offenders = []
    for file in tracked_files():
        if not file.is_file() or file.suffix in (".png", ".jar", ".gz"):
            continue
        try:
            text = file.read_text(errors="strict")
        except (UnicodeDecodeError, OSError):
            continue  # binary
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                offenders.append(f"{file.relative_to(layout.ROOT)}:{number}: {line.strip()}")
    assert not offenders, "references outside the repository:\n" + "\n".join(offenders)
