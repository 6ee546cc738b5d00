"""The repository's documentation stands alone: no README, comment or script points at files
outside it, since a reader has only the repository (the design notes the code relies on live in
docs/)."""
import re
import subprocess

from p2psip_deploy import layout

# A path that leaves the repository: the sibling folder the project was started from, or the
# folder one machine happens to hold its checkout in.
OUTSIDE = re.compile(r"(\.\./)+shared/|\bshared/design/|(^|[\s(`'\"])/work/")
# What only the team's own tracker knew: an issue's number, the sitting or the stop a text was written in.
PRIVATE = re.compile(r"\b[Ii]ssues? #?[0-9]+\b|\b[Ss]top [0-9]+\b|\b(work|this|last|next) session\b")


def tracked_files():
    listed = subprocess.run(["git", "ls-files"], cwd=layout.ROOT, capture_output=True, text=True, check=True)
    return [layout.ROOT / name for name in listed.stdout.splitlines()]


def test_no_tracked_file_refers_to_a_path_outside_the_repository_or_to_an_issue_or_a_session():
    offenders = []
    for file in tracked_files():
        if not file.is_file() or file.suffix in (".png", ".jar", ".gz"):
            continue
        try:
            text = file.read_text(errors="strict")
        except (UnicodeDecodeError, OSError):
            continue  # binary
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line) or PRIVATE.search(line):
                offenders.append(f"{file.relative_to(layout.ROOT)}:{number}: {line.strip()}")
    assert not offenders, "references outside the repository:\n" + "\n".join(offenders)
