"""The users file of a deployment: who may register, as HA1s (never passwords), one line per user,
`user,domain,md5-ha1,sha256-ha1`. Every node reads it (p2psip.auth.users-file) and reads it again
when it changes, so `users add` and `users remove` take effect on a running deployment within
p2psip.auth.users-reload-interval."""
import csv
import hashlib
from pathlib import Path

from . import files

FILE_NAME = "users.csv"
HEADER = "# user,domain,md5-ha1,sha256-ha1 (deploy/p2psip users)"


class UsersError(Exception):
    pass


def users_file(run_dir: Path) -> Path:
    return run_dir / FILE_NAME


def split_aor(user_at_domain: str) -> tuple[str, str]:
    """'alice@P2PSIP.test' -> ('alice', 'p2psip.test'): users are case-sensitive, domains are not."""
    user, at, domain = user_at_domain.strip().removeprefix("sip:").rpartition("@")
    if not at or not user or not domain or "," in user_at_domain:
        raise UsersError(f"want USER@DOMAIN, got {user_at_domain!r}")
    return user, domain.lower()


def line(user: str, domain: str, password: str) -> str:
    """The file's line for a user: the domain is the realm of the node's challenges."""
    secret = f"{user}:{domain}:{password}".encode()
    return f"{user},{domain},{hashlib.md5(secret).hexdigest()},{hashlib.sha256(secret).hexdigest()}"


def read(file: Path) -> dict[tuple[str, str], str]:
    """The file's users, (user, domain) -> line; empty when there is no file."""
    if not file.exists():
        return {}
    users = {}
    for text in file.read_text().splitlines():
        if text.strip() and not text.startswith("#"):
            fields = text.split(",")
            users[(fields[0], fields[1].lower())] = text
    return users


def write(file: Path, users: dict[tuple[str, str], str]) -> None:
    """Replaces the file at once (a node never reads half of it), readable by its owner only."""
    files.write_private(file, "\n".join([HEADER, *sorted(users.values())]) + "\n")


def add(file: Path, user_at_domain: str, password: str) -> None:
    user, domain = split_aor(user_at_domain)
    if not password:
        raise UsersError("an empty password")
    users = read(file)
    users[(user, domain)] = line(user, domain, password)
    write(file, users)


def remove(file: Path, user_at_domain: str) -> bool:
    """Removes the user; False when the file did not have it."""
    users = read(file)
    found = users.pop(split_aor(user_at_domain), None) is not None
    if found:
        write(file, users)
    return found


def import_csv(file: Path, source: Path) -> int:
    """Adds (or replaces) every `user,domain,password` line of `source`; returns how many."""
    users = read(file)
    count = 0
    with source.open(newline="") as rows:
        for number, row in enumerate(csv.reader(rows), 1):
            if not row or row[0].startswith("#"):
                continue
            if len(row) != 3 or not all(f.strip() for f in row):
                raise UsersError(f"{source}:{number}: want user,domain,password")
            user, domain = split_aor(f"{row[0].strip()}@{row[1].strip()}")
            users[(user, domain)] = line(user, domain, row[2])
            count += 1
    write(file, users)
    return count
