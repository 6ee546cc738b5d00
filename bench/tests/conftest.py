"""Makes bench/sipbench importable from the tests, wherever pytest is started."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
