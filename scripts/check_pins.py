"""Exit 0 if this interpreter has exactly the versions pinned in a requirements file.

Used by scripts/bootstrap.sh to decide whether the running interpreter can be used as is.
Local version labels count as equal (torch 2.13.0+cpu satisfies torch==2.13.0).
"""
import re
import sys
from importlib import metadata


def main(path: str) -> int:
    bad = []
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"([A-Za-z0-9_.\-]+)==([^\s;]+)", line)
        if not m:
            bad.append(f"{line}: not an exact pin")
            continue
        name, want = m.groups()
        try:
            have = metadata.version(name)
        except metadata.PackageNotFoundError:
            bad.append(f"{name}: not installed (want {want})")
            continue
        if have.split("+")[0] != want.split("+")[0]:
            bad.append(f"{name}: {have} installed, {want} pinned")
    for b in bad:
        print(b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
