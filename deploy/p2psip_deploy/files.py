"""Files only their owner may read: node.properties (the overlay's secret) and the users file."""
import os
from pathlib import Path


def write_private(file: Path, text: str) -> None:
    """Replaces `file` at once with `text` (a reader never sees half of it), mode 0600."""
    file.parent.mkdir(parents=True, exist_ok=True)
    temporary = file.with_name(file.name + ".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)
    os.chmod(temporary, 0o600)  # O_CREAT's mode does not apply to a file left over from before
    os.replace(temporary, file)
